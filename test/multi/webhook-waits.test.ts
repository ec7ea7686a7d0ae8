import { expect, test } from 'vitest';
import type { Params } from '../../src/store/db.js';
import { buildTestApp } from '../helpers/app.js';
import { TEST_DATABASE_URL, writerOf } from '../helpers/engine.js';
import { sendWebhook, stripeMerchant } from '../helpers/stripe.js';

/*
 * An event that waits (docs/webhooks.md#stripe-webhooks-incoming) decided on one instance while the sale it waits for
 * commits on another: two apps in this process, each with a store of its own on one PostgreSQL
 * schema, the first instance's transaction held open between its decision and its COMMIT.
 */
if (!TEST_DATABASE_URL) throw new Error('test/multi runs on PostgreSQL only: npm run test:postgres, or set PARTNERKIT_TEST_DATABASE_URL');

// Renewals waiting for their checkout (no_attribution) are decided again the same way; their race
// cannot be staged like this, as the renewal's open transaction holds the customer row the checkout updates.
test("a refund decided (sale_not_found) before its sale committed on another instance, and committed after that instance looked for waiting refunds: recorded all the same", async () => {
  const path = 'webhook-waits';
  const a = await buildTestApp({ path });
  const b = await buildTestApp({ path });
  const { program, load } = await stripeMerchant(b);

  // Instance A's writer stops before the COMMIT of the transaction that stores the refund's event.
  const writer = await writerOf(a.store);
  const run = writer.run.bind(writer);
  let reachedCommit!: () => void;
  const atCommit = new Promise<void>((resolve) => (reachedCommit = resolve));
  let releaseCommit!: () => void;
  const released = new Promise<void>((resolve) => (releaseCommit = resolve));
  let holding = false;
  writer.append = ((append) => async (table, columns, rows) => {
    if (table === 'webhook_events') holding = true;
    return append(table, columns, rows);
  })(writer.append.bind(writer));
  writer.run = async (sql: string, params?: Params) => {
    if (sql === 'COMMIT' && holding) {
      holding = false;
      reachedCommit();
      await released;
    }
    return run(sql, params);
  };

  const waits = sendWebhook(a, program, load('refund-full'));
  await atCommit; // decided: no sale yet, so it waits
  const ends = await sendWebhook(b, program, load('checkout-one-time'));
  expect(ends.body).toMatchObject({ outcome: 'recorded', reason: null, sale_id: expect.any(Number) });
  releaseCommit();

  expect((await waits).body).toMatchObject({ outcome: 'recorded', reason: 'refund_recorded', sale_id: ends.body.sale_id, redelivery: false });
  const count = (table: string) => b.store.read(async (sql) => (await sql.one<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n);
  expect({ sales: await count('sale_events'), refunds: await count('refunds') }).toEqual({ sales: 1, refunds: 1 });
  expect(await b.store.read((sql) => sql.all('SELECT status FROM commissions'))).toEqual([{ status: 'reversed' }]);
  const events = await b.store.read((sql) => sql.all<{ outcome: string }>('SELECT outcome FROM webhook_events'));
  expect(events).toEqual([{ outcome: 'recorded' }, { outcome: 'recorded' }]);
});
