import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { startServe, tempDataDir, until } from '../helpers/cli.js';
import { TEST_DATABASE_URL } from '../helpers/engine.js';
import { factories, httpFactoryApi } from '../helpers/factories.js';
import { receiver, type Answer } from '../helpers/receiver.js';

/*
 * Two `partnerkit serve` processes on one PostgreSQL database (dist/: `npm run build` first) share
 * the outbox: one is killed (-9) with deliveries claimed and unanswered, and the other takes its
 * claims over once their lease expires (docs/outbound-webhooks.md#several-instances).
 */
if (!TEST_DATABASE_URL) throw new Error('test/multi runs on PostgreSQL only: npm run test:postgres, or set PARTNERKIT_TEST_DATABASE_URL');

const SALES = 24;
const ARGS = ['--webhook-lease-seconds', '11', '--rate-limit', '1000000'];

test(`${SALES} sales through two instances, one killed with its deliveries in flight: the other delivers every sale's sale.created`, { timeout: 90_000 }, async () => {
  let answer: Answer = 'hang';
  const hooks = await receiver(() => answer);
  const dataDir = tempDataDir();
  const servers = [await startServe(dataDir, ARGS), await startServe(dataDir, ARGS)];
  const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
  const apis = servers.map((s) => factories(httpFactoryApi(s.url, adminToken)));
  const program = await apis[0].program({ name: 'Two instances' });
  await apis[0].lead(program);
  const added = await fetch(`${servers[0].url}/api/programs/${program.id}/webhook-endpoints`, {
    method: 'POST',
    body: JSON.stringify({ url: hooks.url, events: ['sale.created'] }),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
  });
  expect(added.status).toBe(200);
  // The second instance learns of the endpoint within its cache's lifetime (half a second).
  await new Promise((resolve) => setTimeout(resolve, 600));

  const acknowledged = await Promise.all(
    Array.from({ length: SALES }, async (_, i) => (await apis[i % 2].sale(program, { transaction_id: `in_${i}` })).sale_id as number),
  );
  await hooks.waitFor(SALES); // every delivery claimed by one instance or the other, and hanging
  expect(new Set(hooks.received.map((r) => r.headers['webhook-id'])).size).toBe(SALES); // no attempt taken twice
  expect(await servers[0].stop('SIGKILL')).toBeNull();

  const before = hooks.received.length;
  answer = 204;
  await until(() => new Set(hooks.received.slice(before).map((r) => r.json.data.id)).size >= SALES, 60_000);
  const delivered = new Set(hooks.received.slice(before).map((r) => r.json.data.id));
  expect([...delivered].sort((a, b) => a - b)).toEqual([...acknowledged].sort((a, b) => a - b));
});
