import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { startServe, tempDataDir } from '../helpers/cli.js';
import { TEST_DATABASE_URL } from '../helpers/engine.js';
import { checkoutEvents, FAKE_STRIPE_KEY, fakeStripe } from '../helpers/fake-stripe.js';
import { factories, httpFactoryApi } from '../helpers/factories.js';

/*
 * Two `partnerkit serve` processes on one PostgreSQL database (dist/: `npm run build` first)
 * reconcile the same program at the same time (docs/stripe-reconciliation.md#exactly-once): every
 * event is recorded once, whichever instance got to it.
 */
if (!TEST_DATABASE_URL) throw new Error('test/multi runs on PostgreSQL only: npm run test:postgres, or set PARTNERKIT_TEST_DATABASE_URL');

const EVENTS = 300;

test(`${EVENTS} Stripe events reconciled by two instances at once: one record and one sale per event`, { timeout: 90_000 }, async () => {
  const fake = await fakeStripe();
  const dataDir = tempDataDir();
  const env = { PARTNERKIT_STRIPE_API_BASE: fake.url };
  const servers = [await startServe(dataDir, [], env), await startServe(dataDir, [], env)];
  const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
  const make = factories(httpFactoryApi(servers[0].url, adminToken));
  const program = await make.program({ name: 'Two reconcilers', stripeApiKey: FAKE_STRIPE_KEY });
  const { clickId } = await make.lead(program, 'user_42');
  fake.events.push(...checkoutEvents(EVENTS, { CLICK_ID: clickId, CUSTOMER_KEY: 'user_42', PROGRAM_ID: String(program.id) }, Math.floor(Date.now() / 1000) - 60));
  const admin = (url: string, method = 'GET', body?: object) =>
    fetch(url, { method, body: body && JSON.stringify(body), headers: { authorization: `Bearer ${adminToken}`, ...(body && { 'content-type': 'application/json' }) } });

  const reports = await Promise.all(servers.map(async (s) => (await admin(`${s.url}/api/programs/${program.id}/stripe/reconcile`, 'POST', {})).json()));
  for (const report of reports) {
    expect(report.failed).toEqual([]);
    expect(report.checked).toBe(EVENTS);
  }
  const recorded = reports.flatMap((r) => r.recordedNow as string[]);
  expect(new Set(recorded).size).toBe(recorded.length);
  const events = await (await admin(`${servers[1].url}/api/admin/programs/${program.id}/webhook-events?limit=1000`)).json();
  expect(new Set(events.map((e: { eventId: string }) => e.eventId)).size).toBe(EVENTS);
  expect(events).toHaveLength(EVENTS);
  expect(await (await admin(`${servers[1].url}/api/programs/${program.id}/commissions`)).json()).toHaveLength(EVENTS);
});
