import { describe, expect, test } from 'vitest';
import type { Params, Store } from '../../src/store/db.js';
import { buildTestApp, withCustomer, type TestApp } from '../helpers/app.js';
import { writerOf } from '../helpers/engine.js';
import { saleFields } from '../helpers/factories.js';
import { sendWebhook, stripeMerchant } from '../helpers/stripe.js';
import { counts, delta, expectErrorEnvelope } from './support.js';

/**
 * Store failures (the last step of the sale endpoint): when the store throws during a sale the answer is
 * 500 internal_error in the platform envelope, nothing is stored, and the same request succeeds
 * once the store is back.
 */
const SALE = '/api/v1/track/sale';

const sale = (transactionId: string, amount = 4999) => saleFields({ transaction_id: transactionId, amount_cents: amount });

function expectInternalError(response: { statusCode: number; body: string }) {
  expect(response.statusCode, response.body).toBe(500);
  expect(expectErrorEnvelope(500, response.body).code).toBe('internal_error');
}

function customerStatus(t: TestApp): Promise<string | undefined> {
  return t.store.read((sql) => sql.one<{ status: string }>("SELECT status FROM customers WHERE customer_key = 'cust_1'")).then((r) => r?.status);
}

/** Sales without their commission, commissions without their sale, ledger rows without their sale. */
async function orphans(t: TestApp) {
  return t.store.read((sql) =>
    sql.one<{ sales: number; commissions: number; ledger: number }>(`SELECT
      (SELECT count(*) FROM sale_events s WHERE NOT EXISTS (SELECT 1 FROM commissions c WHERE c.sale_id = s.id)) AS sales,
      (SELECT count(*) FROM commissions c WHERE NOT EXISTS (SELECT 1 FROM sale_events s WHERE s.id = c.sale_id)) AS commissions,
      (SELECT count(*) FROM sale_transactions l WHERE l.mode = 'live' AND NOT EXISTS
        (SELECT 1 FROM sale_events s WHERE s.id = l.sale_id AND s.transaction_id = l.transaction_id)) AS ledger`),
  );
}

type Fault = 'sale insert' | 'commission insert' | 'COMMIT';

/** Whether a bound value or an appended row is, or holds, the given string (rows may travel as list parameters). */
function holds(value: unknown, wanted: string): boolean {
  if (value === wanted) return true;
  if (Array.isArray(value)) return value.some((v) => holds(v, wanted));
  const items = (value as { items?: unknown } | null)?.items;
  return Array.isArray(items) && items.some((v) => holds(v, wanted));
}

/**
 * Makes the store's writer throw, as a full disk or an I/O error would, in every transaction that
 * writes the given transaction id: at the sale insert, the commission insert or the COMMIT.
 * ROLLBACK still works (the store issues it on the connection itself). heal() ends the fault.
 */
async function injectFault(store: Store, fault: Fault, transactionId: string) {
  const writer = await writerOf(store);
  const run = writer.run.bind(writer);
  const append = writer.append.bind(writer);
  let poisoned = false;
  let armed = true;
  let fired = 0;
  const failIf = (hit: boolean) => {
    if (!armed || !poisoned || !hit) return;
    fired++;
    throw new Error(`IO Error: simulated failure at ${fault}`);
  };
  writer.run = async (sql: string, params: Params = []) => {
    if (sql.startsWith('BEGIN')) poisoned = false;
    if (holds(params, transactionId)) poisoned = true;
    failIf(fault === 'COMMIT' && sql === 'COMMIT');
    return run(sql, params);
  };
  writer.append = async (table, columns, rows) => {
    if (holds(rows.map((row) => Object.values(row)), transactionId)) poisoned = true;
    failIf((fault === 'sale insert' && table === 'sale_events') || (fault === 'commission insert' && table === 'commissions'));
    return append(table, columns, rows);
  };
  return {
    heal: () => {
      armed = false;
    },
    fired: () => fired,
  };
}

describe('store failures during a sale', () => {
  test.each([
    ['sale insert', 'sale_events'],
    ['commission insert', 'commissions'],
  ])('a real DuckDB error at the %s (table %s gone): 500 internal_error, nothing stored, the same request succeeds once it is back', async (_step, table) => {
    const { t, program } = await withCustomer();
    // One sale first, so the id allocator is warm and the failure is the INSERT itself.
    expect((await t.post(SALE, sale('in_warm'), program.apiKey)).statusCode).toBe(200);
    await t.store.transaction((sql) => sql.write({ table: 'customers', set: 'status = $1, first_purchase_date = NULL', where: 'true' }, ['lead']));
    const before = await counts(t.store);
    await t.store.transaction((sql) => sql.run(`ALTER TABLE ${table} RENAME TO ${table}_offline`));
    expectInternalError(await t.post(SALE, sale('in_1'), program.apiKey));
    await t.store.transaction((sql) => sql.run(`ALTER TABLE ${table}_offline RENAME TO ${table}`));
    expect(delta(before, await counts(t.store))).toEqual({});
    expect(await customerStatus(t)).toBe('lead');

    const retry = await t.post(SALE, sale('in_1'), program.apiKey);
    expect(retry.statusCode, retry.body).toBe(200);
    expect(retry.json()).toMatchObject({ success: true, sale_id: expect.any(Number), commission_id: expect.any(Number) });
    expect(delta(before, await counts(t.store))).toEqual({ sale_events: 1, commissions: 1, sale_transactions: 1, conversions: 1 });
    expect(await orphans(t)).toEqual({ sales: 0, commissions: 0, ledger: 0 });
  });

  test.each<Fault>(['sale insert', 'commission insert', 'COMMIT'])(
    'failure at the %s amid 12 concurrent sales (one batch): only that sale is 500 and absent; its retry succeeds',
    async (fault) => {
      const { t, program } = await withCustomer();
      const ids = Array.from({ length: 12 }, (_, i) => `in_${i}`);
      const failure = await injectFault(t.store, fault, 'in_5');
      const before = await counts(t.store);

      const responses = await Promise.all(ids.map((id, i) => t.post(SALE, sale(id, 1000 + i), program.apiKey)));
      expect(failure.fired(), responses.map((r) => r.statusCode + ' ' + r.body).join('\n')).toBeGreaterThan(0);
      responses.forEach((response, i) => {
        if (ids[i] === 'in_5') expectInternalError(response);
        else expect(response.statusCode, `${ids[i]}: ${response.body}`).toBe(200);
      });
      expect(delta(before, await counts(t.store))).toEqual({ sale_events: 11, commissions: 11, sale_transactions: 11, conversions: 1 });
      expect(await t.count('sale_events', "transaction_id = 'in_5'")).toBe(0);
      expect(await t.count('sale_transactions', "transaction_id = 'in_5'")).toBe(0);
      expect(await orphans(t)).toEqual({ sales: 0, commissions: 0, ledger: 0 });
      // The acknowledged sales are the ones stored, with the ids they were answered with.
      const stored = await t.store.read((sql) => sql.all<{ id: number; transaction_id: string }>('SELECT id, transaction_id FROM sale_events'));
      const answered = responses.filter((r) => r.statusCode === 200).map((r) => r.json().sale_id as number);
      expect(stored.map((s) => s.id).sort((a, b) => a - b)).toEqual([...answered].sort((a, b) => a - b));

      // While the fault lasts the retry fails the same way; once healed it is recorded, not a 409.
      expectInternalError(await t.post(SALE, sale('in_5', 1005), program.apiKey));
      failure.heal();
      const retry = await t.post(SALE, sale('in_5', 1005), program.apiKey);
      expect(retry.statusCode, retry.body).toBe(200);
      expect(retry.json()).toMatchObject({ sale_id: expect.any(Number), commission_id: expect.any(Number) });
      expect(delta(before, await counts(t.store))).toEqual({ sale_events: 12, commissions: 12, sale_transactions: 12, conversions: 1 });
      expect((await t.post(SALE, sale('in_5', 1005), program.apiKey)).statusCode).toBe(409);
      expect(await orphans(t)).toEqual({ sales: 0, commissions: 0, ledger: 0 });
    },
  );

  test('a Stripe delivery that meets a store failure is 500 (Stripe retries) and leaves no event; the redelivery records the sale', async () => {
    const t = await buildTestApp();
    const { program, load } = await stripeMerchant(t);
    const payload = JSON.stringify(load('checkout-one-time'));
    const failure = await injectFault(t.store, 'commission insert', 'pi_3RpkOneTimeQm2LdVh1');
    const before = await counts(t.store);
    const failed = await sendWebhook(t, program, payload);
    expectInternalError({ statusCode: failed.status, body: JSON.stringify(failed.body) });
    expect(failure.fired()).toBeGreaterThan(0);
    expect(delta(before, await counts(t.store))).toEqual({});

    failure.heal();
    const redelivery = await sendWebhook(t, program, payload);
    expect(redelivery.status, JSON.stringify(redelivery.body)).toBe(200);
    expect(redelivery.body).toMatchObject({ outcome: 'recorded', sale_id: expect.any(Number), redelivery: false });
    expect(delta(before, await counts(t.store))).toEqual({ sale_events: 1, commissions: 1, sale_transactions: 1, webhook_events: 1, conversions: 1 });
  });
});
