import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { startServe, tempDataDir, until } from '../helpers/cli.js';
import { checkoutEvents, FAKE_STRIPE_KEY, fakeStripe } from '../helpers/fake-stripe.js';
import { factories, httpFactoryApi } from '../helpers/factories.js';

/*
 * A reconciliation killed half-way (docs/stripe-reconciliation.md#exactly-once), on a real
 * `partnerkit serve` (dist/: `npm run build` first): the first page of events recorded, the server
 * killed (-9) while it waits for the second page, started again and reconciled again: every event
 * recorded exactly once.
 */
const EVENTS = 180;

describe('kill -9 during a reconciliation', () => {
  test(`${EVENTS} events, the server killed after the first page: the rerun records the rest, each event once`, { timeout: 90_000 }, async () => {
    const fake = await fakeStripe();
    let release!: () => void;
    fake.hold = new Promise<void>((resolve) => (release = resolve));
    const dataDir = tempDataDir();
    const env = { PARTNERKIT_STRIPE_API_BASE: fake.url };
    const first = await startServe(dataDir, [], env);
    const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const make = factories(httpFactoryApi(first.url, adminToken));
    const program = await make.program({ name: 'Reconcile crash' });
    const { clickId } = await make.lead(program, 'user_42');
    const admin = (url: string, method = 'GET', body?: object) =>
      fetch(url, { method, body: body && JSON.stringify(body), headers: { authorization: `Bearer ${adminToken}`, ...(body && { 'content-type': 'application/json' }) } });
    expect((await admin(`${first.url}/api/admin/programs/${program.id}`, 'PATCH', { stripeApiKey: FAKE_STRIPE_KEY })).status).toBe(200);
    fake.events.push(...checkoutEvents(EVENTS, { CLICK_ID: clickId, CUSTOMER_KEY: 'user_42', PROGRAM_ID: String(program.id) }, Math.floor(Date.now() / 1000) - 60));

    const reconcile = (base: string) => admin(`${base}/api/programs/${program.id}/stripe/reconcile`, 'POST', {});
    const interrupted = reconcile(first.url).catch(() => undefined);
    // The second page is asked for once the first page's events are committed.
    await until(() => fake.requests.some((r) => r.query.get('starting_after') !== null), 30_000);
    expect(await first.stop('SIGKILL')).toBeNull();
    await interrupted;
    release();

    const second = await startServe(dataDir, [], env);
    const rerun = await (await reconcile(second.url)).json();
    expect(rerun.checked).toBe(EVENTS);
    expect(rerun.alreadyRecorded.length).toBeGreaterThanOrEqual(100);
    expect(rerun.alreadyRecorded.length + rerun.recordedNow.length).toBe(EVENTS);
    expect(rerun.failed).toEqual([]);
    const events = await (await admin(`${second.url}/api/admin/programs/${program.id}/webhook-events?limit=1000`)).json();
    expect(events).toHaveLength(EVENTS);
    expect(new Set(events.map((e: { eventId: string }) => e.eventId)).size).toBe(EVENTS);
    const commissions = await (await admin(`${second.url}/api/programs/${program.id}/commissions`)).json();
    expect(commissions).toHaveLength(EVENTS);
  });
});
