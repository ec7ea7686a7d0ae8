import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { startServe, tempDataDir, until } from '../helpers/cli.js';
import { factories, httpFactoryApi } from '../helpers/factories.js';
import { receiver, type Answer } from '../helpers/receiver.js';

/*
 * The outbox across a crash, on a real `partnerkit serve` (dist/: `npm run build` first): sales
 * acknowledged, the server killed (-9) while their webhooks hang unanswered, then started again:
 * every acknowledged sale's sale.created arrives (docs/outbound-webhooks.md#the-outbox).
 */
const SALES = 24;
/** The shortest lease serve takes: a killed server's claims are free again after it. */
const LEASE = ['--webhook-lease-seconds', '11'];

describe('kill -9 between the commit and the delivery', () => {
  test(`${SALES} acknowledged sales, their deliveries in flight at the kill: each one's sale.created arrives after the restart`, { timeout: 90_000 }, async () => {
    let answer: Answer = 'hang';
    const hooks = await receiver(() => answer);
    const dataDir = tempDataDir();
    const first = await startServe(dataDir, [...LEASE, '--rate-limit', '1000000']);
    const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const make = factories(httpFactoryApi(first.url, adminToken));
    const program = await make.program({ name: 'Crash test' });
    await make.lead(program);
    const added = await fetch(`${first.url}/api/programs/${program.id}/webhook-endpoints`, {
      method: 'POST',
      body: JSON.stringify({ url: hooks.url, events: ['sale.created'] }),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
    });
    expect(added.status).toBe(200);

    const acknowledged = await Promise.all(
      Array.from({ length: SALES }, async (_, i) => (await make.sale(program, { transaction_id: `in_${i}` })).sale_id as number),
    );
    await hooks.waitFor(1); // the worker holds claims: requests hang at the receiver
    expect(await first.stop('SIGKILL')).toBeNull();

    const before = hooks.received.length;
    answer = 204;
    await startServe(dataDir, LEASE);
    await until(() => new Set(hooks.received.slice(before).map((r) => r.json.data.id)).size >= SALES, 60_000);
    const delivered = new Set(hooks.received.slice(before).map((r) => r.json.data.id));
    expect([...delivered].sort((a, b) => a - b)).toEqual([...acknowledged].sort((a, b) => a - b));
  });
});
