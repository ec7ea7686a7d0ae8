import { describe, expect, test } from 'vitest';
import { injectTransport } from '../../src/local.js';
import { PartnerkitClient, type Transport } from '../../src/sdk/index.js';
import type { CommissionStatus } from '../../src/store/sales.js';
import { ADMIN_TOKEN, buildTestApp, T0, withCustomer, type ProgramFixture, type TestApp } from '../helpers/app.js';

const REFUND = '/api/v1/track/refund';

async function refund(t: TestApp, apiKey: string, body: Record<string, unknown>) {
  const response = await t.post(REFUND, body, apiKey);
  return { status: response.statusCode, body: response.json() };
}

const ok = (fields: Record<string, unknown>) => ({ status: 200, body: { success: true, ...fields } });

function error(status: number, name: string, code: string, message: string, details: unknown) {
  return { status, body: { data: null, error: { status, name, message, details, code } } };
}

/** Every commission of the program, oldest first, as the refund left it. */
function commissions(t: TestApp) {
  return t.store.read((sql) =>
    sql.all<{ id: number; sale_id: number; amount_cents: number; status: string; type: string; partner_program_id: number; currency: string }>(
      'SELECT id, sale_id, amount_cents, status, type, partner_program_id, currency FROM commissions ORDER BY id',
    ),
  );
}

/** What a commission's status is set to where payouts and reviews would set it. */
async function setCommissionStatus(t: TestApp, id: number, status: CommissionStatus) {
  await t.store.transaction((sql) => sql.write({ table: 'commissions', set: 'status = $2', where: 'id = $1' }, [id, status]));
}

/** A program (20 % unless overridden) with customer cust_1 and sale in_1 of 49.99 (commission 10.00 at 20 %). */
async function soldOnce(programOverrides: Record<string, unknown> = {}, sale: Record<string, unknown> = {}) {
  const { t, program } = await withCustomer(programOverrides);
  const answer = await t.sale(program, sale);
  return { t, program, saleId: answer.sale_id as number, commissionId: answer.commission_id as number };
}

describe('POST /api/v1/track/refund: the sale and its pending or approved commission', () => {
  test.each<[string, CommissionStatus]>([
    ['pending', 'pending'],
    ['approved', 'approved'],
  ])('%s: a full refund (no amount: everything) reverses the commission, amount kept; nothing is clawed back', async (_name, status) => {
    const { t, program } = await soldOnce();
    await setCommissionStatus(t, 1, status);
    expect(await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_1', reason: 'requested_by_customer' })).toEqual(
      ok({ refund_id: 1, sale_id: 1, refunded_cents: 4999, remaining_cents: 0, commission_id: 1, commission_status: 'reversed', clawback_commission_id: null }),
    );
    expect(await commissions(t)).toEqual([
      { id: 1, sale_id: 1, amount_cents: 1000, status: 'reversed', type: 'sale', partner_program_id: program.partnerProgramId, currency: 'USD' },
    ]);
    const row = await t.store.read((sql) => sql.one('SELECT * FROM refunds'));
    expect(row).toMatchObject({
      id: 1, refund_key: `${program.id}:live:re_1`, program_id: program.id, mode: 'live', refund_id: 're_1', sale_id: 1, amount_cents: 4999,
      currency: 'USD', reason: 'requested_by_customer', source: 'api', completes_sale: true,
    });
    expect([row!.paid_at, row!.received_at].map((d) => (d as Date).toISOString())).toEqual([T0, T0]);
  });

  test.each<[string, CommissionStatus]>([
    ['pending', 'pending'],
    ['approved', 'approved'],
  ])('%s: partial refunds recompute a percentage commission on what is left, rounded half up; a third one refunds the rest', async (_name, status) => {
    const { t, program } = await soldOnce();
    await setCommissionStatus(t, 1, status);
    const partial = (refundId: string, cents?: number) => refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: refundId, amount_cents: cents });
    // 4999 − 1999 = 3000 left: 20 % = 600.
    expect(await partial('re_1', 1999)).toEqual(
      ok({ refund_id: 1, sale_id: 1, refunded_cents: 1999, remaining_cents: 3000, commission_id: 1, commission_status: status, clawback_commission_id: null }),
    );
    // 3000 − 503 = 2497 left: 20 % = 499.4 → 499.
    expect((await partial('re_2', 503)).body).toMatchObject({ refund_id: 2, refunded_cents: 2502, remaining_cents: 2497, commission_status: status });
    expect((await commissions(t))[0]).toMatchObject({ amount_cents: 499, status });
    // 2497 − 2 = 2495 left: 20 % = 499 exactly.
    expect((await partial('re_3', 2)).body).toMatchObject({ refunded_cents: 2504, remaining_cents: 2495 });
    expect((await commissions(t))[0]).toMatchObject({ amount_cents: 499, status });
    expect((await partial('re_4')).body).toMatchObject({ refund_id: 4, refunded_cents: 4999, remaining_cents: 0, commission_status: 'reversed' });
    expect(await commissions(t)).toEqual([expect.objectContaining({ id: 1, amount_cents: 499, status: 'reversed', type: 'sale' })]);
    expect(await t.count('refunds')).toBe(4);
    expect(await t.count('refunds', 'completes_sale')).toBe(1);
  });

  test('the answer gives the status the commission reads as: approved after its hold under automatic approval, pending under manual', async () => {
    const { t, program } = await soldOnce({ holdDays: 30 });
    t.clock.set('2026-04-01T12:00:00.000Z'); // 31 days after the sale: the hold is over
    expect((await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 999 })).body).toMatchObject({
      commission_id: 1, commission_status: 'approved',
    });
    const manual = await soldOnce({ holdDays: 30, approval: 'manual' });
    manual.t.clock.set('2026-04-01T12:00:00.000Z');
    expect((await refund(manual.t, manual.program.apiKey, { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 999 })).body).toMatchObject({
      commission_id: 1, commission_status: 'pending',
    });
  });

  test('half up: 12.5 % of 100 is 13; after refunding 88, 12.5 % of the 12 left is 1.5 → 2, and of 11 is 1.375 → 1', async () => {
    const { t, program } = await soldOnce({ commissionPercent: 12.5 }, { amount_cents: 100 });
    expect((await commissions(t))[0].amount_cents).toBe(13);
    await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 88 });
    expect((await commissions(t))[0].amount_cents).toBe(2);
    await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_2', amount_cents: 1 });
    expect((await commissions(t))[0].amount_cents).toBe(1);
  });

  test('the percentage is the one the commission was computed with, not a product rule added later', async () => {
    const { t, program } = await soldOnce({}, { product_id: 'pro' });
    await t.admin('POST', `/programs/${program.id}/rules`, { productId: 'pro', commissionPercent: 50 });
    await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 999 });
    expect((await commissions(t))[0].amount_cents).toBe(800); // 20 % of 4000, not 50 %
  });

  test('a flat commission is kept whole until the sale is fully refunded, then reversed', async () => {
    const { t, program } = await soldOnce({ commissionFlatCents: 500 });
    expect((await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 4998 })).body).toMatchObject({
      remaining_cents: 1, commission_id: 1, commission_status: 'pending', clawback_commission_id: null,
    });
    expect((await commissions(t))[0]).toMatchObject({ amount_cents: 500, status: 'pending' });
    expect((await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_2' })).body).toMatchObject({ remaining_cents: 0, commission_status: 'reversed' });
    expect(await commissions(t)).toEqual([expect.objectContaining({ amount_cents: 500, status: 'reversed' })]);
  });
});

describe('POST /api/v1/track/refund: a commission already in a payout gets a clawback', () => {
  test.each<[string, CommissionStatus]>([
    ['processing', 'processing'],
    ['paid', 'paid'],
  ])('%s: partial then full refund: the commission stays, clawbacks of the difference (approved, negative, same partner and currency)', async (_name, status) => {
    const { t, program } = await soldOnce({}, { currency: 'eur' });
    await setCommissionStatus(t, 1, status);
    // Earned 1000; 20 % of the 3000 left is 600: a clawback of −400.
    expect(await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 1999 })).toEqual(
      ok({ refund_id: 1, sale_id: 1, refunded_cents: 1999, remaining_cents: 3000, commission_id: 1, commission_status: status, clawback_commission_id: 2 }),
    );
    t.clock.advanceDays(2);
    // Nothing left is due: 0 − (1000 − 400) = −600.
    expect((await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_2' })).body).toMatchObject({
      refunded_cents: 4999, remaining_cents: 0, commission_id: 1, commission_status: status, clawback_commission_id: 3,
    });
    const base = { sale_id: 1, partner_program_id: program.partnerProgramId, currency: 'EUR' };
    expect(await commissions(t)).toEqual([
      { id: 1, ...base, amount_cents: 1000, status, type: 'sale' },
      { id: 2, ...base, amount_cents: -400, status: 'approved', type: 'clawback' },
      { id: 3, ...base, amount_cents: -600, status: 'approved', type: 'clawback' },
    ]);
    const clawback = await t.store.read((sql) => sql.one('SELECT created_at, hold_until, day, percent_bp, payout_id FROM commissions WHERE id = 3'));
    expect(clawback).toMatchObject({ percent_bp: null, payout_id: null });
    expect([clawback!.created_at, clawback!.hold_until].map((d) => (d as Date).toISOString())).toEqual(['2026-03-03T12:00:00.000Z', '2026-03-03T12:00:00.000Z']);
  });

  test('a commission reduced while pending and paid later: the clawback is the difference from the reduced amount', async () => {
    const { t, program } = await soldOnce();
    await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 1999 }); // 1000 → 600
    await setCommissionStatus(t, 1, 'paid');
    await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_2', amount_cents: 1000 }); // 20 % of 2000 = 400: −200
    expect((await commissions(t)).map((c) => [c.amount_cents, c.status, c.type])).toEqual([[600, 'paid', 'sale'], [-200, 'approved', 'clawback']]);
  });

  test('a clawback that was rejected does not count as taken back', async () => {
    const { t, program } = await soldOnce();
    await setCommissionStatus(t, 1, 'paid');
    await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 1999 }); // −400
    await setCommissionStatus(t, 2, 'rejected');
    await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_2' }); // 0 − 1000
    expect((await commissions(t)).map((c) => [c.amount_cents, c.status])).toEqual([[1000, 'paid'], [-400, 'rejected'], [-1000, 'approved']]);
  });

  test('a flat commission in a payout: no clawback for a partial refund, all of it for the full one', async () => {
    const { t, program } = await soldOnce({ commissionFlatCents: 500 });
    await setCommissionStatus(t, 1, 'processing');
    expect((await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 4000 })).body).toMatchObject({
      commission_status: 'processing', clawback_commission_id: null,
    });
    expect((await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_2' })).body).toMatchObject({ clawback_commission_id: 2 });
    expect((await commissions(t)).map((c) => [c.amount_cents, c.status, c.type])).toEqual([[500, 'processing', 'sale'], [-500, 'approved', 'clawback']]);
  });

  test.each<[string, CommissionStatus]>([
    ['rejected', 'rejected'],
    ['reversed', 'reversed'],
  ])('%s: the refund is recorded, the commission is left as it is and nothing is clawed back', async (_name, status) => {
    const { t, program } = await soldOnce();
    await setCommissionStatus(t, 1, status);
    expect(await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 1999 })).toEqual(
      ok({ refund_id: 1, sale_id: 1, refunded_cents: 1999, remaining_cents: 3000, commission_id: 1, commission_status: status, clawback_commission_id: null }),
    );
    expect(await commissions(t)).toEqual([expect.objectContaining({ amount_cents: 1000, status })]);
  });
});

describe('POST /api/v1/track/refund: refusals, in the order of checks', () => {
  test('over-refunds are 422 refund_exceeds_sale with what is left; nothing stored', async () => {
    const { t, program } = await soldOnce();
    expect(await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 5000 })).toEqual(
      error(422, 'UnprocessableEntityError', 'refund_exceeds_sale', 'The refund exceeds what is left of the sale (4999 cents)', { remaining_cents: 4999 }),
    );
    await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_2', amount_cents: 1999 });
    expect((await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_3', amount_cents: 3001 })).body.error.details).toEqual({ remaining_cents: 3000 });
    await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_4' });
    // Fully refunded: "everything left" is nothing.
    expect(await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_5' })).toEqual(
      error(422, 'UnprocessableEntityError', 'refund_exceeds_sale', 'The refund exceeds what is left of the sale (0 cents)', { remaining_cents: 0 }),
    );
    expect(await t.count('refunds')).toBe(2);
    expect(await t.count('commissions')).toBe(1);
  });

  test('a refund id again is 409 duplicate_refund naming the recorded refund, before the sale or the amount is looked at', async () => {
    const { t, program } = await soldOnce();
    await t.sale(program, { transaction_id: 'in_2' });
    await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 100 });
    const duplicate = error(409, 'ConflictError', 'duplicate_refund', 'Refund re_1 was already recorded', { refund_id: 1 });
    expect(await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 100 })).toEqual(duplicate);
    expect(await refund(t, program.apiKey, { transaction_id: 'in_2', refund_id: 're_1', amount_cents: 100 })).toEqual(duplicate);
    expect(await refund(t, program.apiKey, { transaction_id: 'in_nope', refund_id: 're_1', amount_cents: 999_999 })).toEqual(duplicate);
    expect(await t.count('refunds')).toBe(1);
    expect((await commissions(t))[0].amount_cents).toBe(980);
  });

  test('404 sale_not_found: an unknown transaction, another program\'s, a live one with a test key, and a window-expired one', async () => {
    const { t, program } = await soldOnce({ attributionWindowDays: 1 });
    const other = await t.program();
    await t.lead(other, 'cust_other');
    await t.sale(other, { transaction_id: 'in_other', customer_key: 'cust_other' });
    t.clock.advanceDays(2);
    expect((await t.sale(program, { transaction_id: 'in_expired' })).sale_id).toBeNull();
    const notFound = (txn: string) => error(404, 'NotFoundError', 'sale_not_found', `No sale with transaction_id ${txn} in this program`, { transaction_id: txn });
    expect(await refund(t, program.apiKey, { transaction_id: 'in_nope', refund_id: 're_1' })).toEqual(notFound('in_nope'));
    expect(await refund(t, program.apiKey, { transaction_id: 'in_other', refund_id: 're_1' })).toEqual(notFound('in_other'));
    expect(await refund(t, program.testApiKey, { transaction_id: 'in_1', refund_id: 're_1' })).toEqual(notFound('in_1'));
    expect(await refund(t, program.apiKey, { transaction_id: 'in_expired', refund_id: 're_1' })).toEqual(notFound('in_expired'));
    expect(await t.count('refunds')).toBe(0);
    // The refused ids stay free.
    expect((await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_1' })).status).toBe(200);
  });

  test.each([
    ['no refund_id', { transaction_id: 'in_1' }, [{ field: 'refund_id', message: 'Invalid input: expected string, received undefined' }]],
    ['an empty transaction_id', { transaction_id: '', refund_id: 're_1' }, [{ field: 'transaction_id', message: 'Too small: expected string to have >=1 characters' }]],
    ['a refund_id of 256 characters', { transaction_id: 'in_1', refund_id: 'r'.repeat(256) }, [{ field: 'refund_id', message: 'Too big: expected string to have <=255 characters' }]],
    ['amount_cents 0', { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 0 }, [{ field: 'amount_cents', message: 'Too small: expected number to be >=1' }]],
    ['amount_cents 12.5', { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 12.5 }, [{ field: 'amount_cents', message: 'Invalid input: expected int, received number' }]],
    ['amount_cents "100"', { transaction_id: 'in_1', refund_id: 're_1', amount_cents: '100' }, [{ field: 'amount_cents', message: 'Invalid input: expected number, received string' }]],
    ['a reason of 1,001 characters', { transaction_id: 'in_1', refund_id: 're_1', reason: 'x'.repeat(1001) }, [{ field: 'reason', message: 'Too big: expected string to have <=1000 characters' }]],
  ])('%s is 400 invalid_request naming the field; nothing stored', async (_name, body, fields) => {
    const { t, program } = await soldOnce();
    const answer = await refund(t, program.apiKey, body);
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'invalid_request', details: { fields } });
    expect(await t.count('refunds')).toBe(0);
  });
});

describe('POST /api/v1/track/refund: test mode, sales without commission', () => {
  test('a test key refunds test sales only, touching no commission; the refund is stored as test and never reported', async () => {
    const { t, program } = await soldOnce();
    const testSale = await t.sale(program, { transaction_id: 'in_1', amount_cents: 2000 }, program.testApiKey);
    expect(testSale.data.eventId).toBe(1);
    expect(await refund(t, program.testApiKey, { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 500 })).toEqual(
      ok({ refund_id: 1, sale_id: 1, refunded_cents: 500, remaining_cents: 1500, commission_id: null, commission_status: null, clawback_commission_id: null }),
    );
    // The same refund id with the live key is another namespace; the live sale and its commission are separate.
    expect((await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 500 })).body).toMatchObject({ refund_id: 2, commission_id: 1 });
    expect(await t.count('refunds', "mode = 'test' AND day IS NULL AND paid_day IS NULL AND paid_at IS NULL")).toBe(1);
    expect((await commissions(t))[0].amount_cents).toBe(900);
  });

  test('a test sale recorded without an amount has nothing to refund', async () => {
    const { t, program } = await soldOnce();
    await t.post('/api/v1/track/sale', { transaction_id: 'in_t', additional_data: { test_mode: true } }, program.testApiKey);
    expect((await refund(t, program.testApiKey, { transaction_id: 'in_t', refund_id: 're_1' })).body.error).toMatchObject({
      code: 'refund_exceeds_sale', details: { remaining_cents: 0 },
    });
  });

  test('a renewal past the recurring duration has no commission: the refund answers commission_id null', async () => {
    const { t, program } = await soldOnce({ recurringMonths: 0 }, { transaction_id: 'in_r', is_recurring: true, subscription_id: 'sub_1' });
    expect((await refund(t, program.apiKey, { transaction_id: 'in_r', refund_id: 're_1' })).body).toMatchObject({
      sale_id: 1, refunded_cents: 4999, remaining_cents: 0, commission_id: null, commission_status: null, clawback_commission_id: null,
    });
  });
});

describe('POST /api/v1/track/refund: exactly once', () => {
  test('20 concurrent identical refunds record one refund: one 200, nineteen 409 naming it; the commission changes once', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    await t.lead(program);
    await t.sale(program);
    await setCommissionStatus(t, 1, 'paid');
    const url = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const body = JSON.stringify({ transaction_id: 'in_1', refund_id: 're_storm', amount_cents: 1999 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${url}${REFUND}`, { method: 'POST', body, headers: { 'content-type': 'application/json', authorization: `Bearer ${program.apiKey}` } })
          .then(async (r) => ({ status: r.status, body: (await r.json()) as any })),
      ),
    );
    expect(answers.filter((a) => a.status === 200).map((a) => a.body)).toEqual([
      { success: true, refund_id: 1, sale_id: 1, refunded_cents: 1999, remaining_cents: 3000, commission_id: 1, commission_status: 'paid', clawback_commission_id: 2 },
    ]);
    const conflicts = answers.filter((a) => a.status === 409);
    expect(conflicts).toHaveLength(19);
    expect(conflicts.every((a) => a.body.error.code === 'duplicate_refund' && a.body.error.details.refund_id === 1)).toBe(true);
    expect(await t.count('refunds')).toBe(1);
    expect((await commissions(t)).map((c) => c.amount_cents)).toEqual([1000, -400]);
  });

  test('20 concurrent different partial refunds of one sale never refund more than the sale', async () => {
    const { t, program } = await soldOnce();
    const url = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(`${url}${REFUND}`, {
          method: 'POST',
          body: JSON.stringify({ transaction_id: 'in_1', refund_id: `re_${i}`, amount_cents: 300 }),
          headers: { 'content-type': 'application/json', authorization: `Bearer ${program.apiKey}` },
        }).then((r) => r.status),
      ),
    );
    // 16 × 300 = 4800 fit into 4999; the other four are refused.
    expect(answers.filter((s) => s === 200)).toHaveLength(16);
    expect(answers.filter((s) => s === 422)).toHaveLength(4);
    const total = await t.store.read((sql) => sql.one<{ n: number }>('SELECT CAST(sum(amount_cents) AS BIGINT) AS n FROM refunds'));
    expect(total!.n).toBe(4800);
    expect((await commissions(t))[0].amount_cents).toBe(40); // 20 % of 199
  });
});

describe('refunds in the performance report', () => {
  async function report(t: TestApp, program: ProgramFixture, query: string) {
    const response = await t.app.inject({ method: 'GET', url: `/api/tracking/performance/${program.id}?${query}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(response.statusCode).toBe(200);
    return response.json();
  }

  test('revenue is net of refunds on the sale\'s own day; a fully refunded sale leaves totalSales; totalRefunded counts by refund day; commission at current amounts without reversed ones, clawbacks included', async () => {
    const { t, program } = await withCustomer();
    // Day 1 (03-01): two sales, 49.99 and 100.00.
    await t.sale(program);
    await t.sale(program, { transaction_id: 'in_2', amount_cents: 10_000 });
    // Day 3: a third sale of 30.00, then its commission is paid.
    t.clock.set('2026-03-03T12:00:00.000Z');
    await t.sale(program, { transaction_id: 'in_3', amount_cents: 3000 });
    await setCommissionStatus(t, 3, 'paid');
    // Day 5: in_1 refunded in full (its commission reversed), in_2 by 25.00 (its commission 20 % of 75.00), in_3 by 10.00 (clawback −2.00).
    t.clock.set('2026-03-05T09:00:00.000Z');
    await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_1' });
    await refund(t, program.apiKey, { transaction_id: 'in_2', refund_id: 're_2', amount_cents: 2500 });
    await refund(t, program.apiKey, { transaction_id: 'in_3', refund_id: 're_3', amount_cents: 1000 });

    const r = await report(t, program, 'dateFrom=2026-03-01&dateTo=2026-03-05');
    expect(r.data.map((d: any) => [d.date, d.revenue, d.commission])).toEqual([
      ['2026-03-01', 75, 15], // 49.99 + 100 − 49.99 − 25; commissions 10.00 reversed, 15.00
      ['2026-03-02', 0, 0],
      ['2026-03-03', 20, 6], // 30 − 10; the paid commission stays 6.00
      ['2026-03-04', 0, 0],
      ['2026-03-05', 0, -2], // the clawback, on its own day
    ]);
    expect(r.metrics).toMatchObject({
      totalRevenue: 95, totalSales: 2, totalRefunded: 84.99, totalPartnersCommission: 19,
      refundedTrend: { trend: 100, trendDirection: 'up' }, salesTrend: { trend: 100, trendDirection: 'up' },
    });
    // The refund day alone: refunds are dated by receipt, revenue by the sale.
    const refundDay = await report(t, program, 'dateFrom=2026-03-05&dateTo=2026-03-05');
    expect(refundDay.metrics).toMatchObject({ totalRevenue: 0, totalSales: 0, totalRefunded: 84.99, totalPartnersCommission: -2 });
    // The next five days compared with these: no refunds, down 100 %.
    const after = await report(t, program, 'dateFrom=2026-03-06&dateTo=2026-03-10');
    expect(after.metrics).toMatchObject({ totalRefunded: 0, refundedTrend: { trend: 100, trendDirection: 'down' } });
  });

  test('a refund of a sale dated by occurred_at nets the day the sale is reported on, also in a custom range cutting that day', async () => {
    const { t, program } = await withCustomer();
    await t.sale(program, { occurred_at: '2026-02-27T23:30:00Z' });
    await refund(t, program.apiKey, { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 999 });
    const days = await report(t, program, 'dateFrom=2026-02-27&dateTo=2026-03-01');
    expect(days.data.map((d: any) => [d.date, d.revenue])).toEqual([['2026-02-27', 40], ['2026-02-28', 0], ['2026-03-01', 0]]);
    expect(days.metrics).toMatchObject({ totalRevenue: 40, totalRefunded: 9.99, totalSales: 1 });
    // A window starting after the sale's instant on its day: neither the sale nor its refund is in it.
    const cut = await report(t, program, 'dateFrom=2026-02-27T23:45:00Z&dateTo=2026-03-01');
    expect(cut.metrics).toMatchObject({ totalRevenue: 0, totalSales: 0, totalRefunded: 9.99 });
  });
});

describe('SDK trackRefund', () => {
  test('maps invoiceId, refundId, amount (cents) and reason; a duplicate refundId resolves as already_recorded', async () => {
    const { t, program } = await soldOnce();
    const client = new PartnerkitClient({ transport: injectTransport(t.app), apiKey: program.apiKey });
    const input = { invoiceId: 'in_1', refundId: 're_sdk', amount: 1999, reason: 'late delivery' };
    expect(await client.trackRefund(input)).toEqual({
      status: 'recorded', refundId: 1, saleId: 1, refundedCents: 1999, remainingCents: 3000, commissionId: 1, commissionStatus: 'pending', clawbackCommissionId: null,
    });
    expect(await client.trackRefund(input)).toEqual({ status: 'already_recorded', refundId: 1, message: 'Refund re_sdk was already recorded' });
    expect(await t.store.read((sql) => sql.one('SELECT refund_id, amount_cents, reason FROM refunds'))).toEqual({ refund_id: 're_sdk', amount_cents: 1999, reason: 'late delivery' });
    expect(await client.trackRefund({ invoiceId: 'in_1', refundId: 're_rest' })).toMatchObject({ status: 'recorded', refundedCents: 4999, commissionStatus: 'reversed' });
    await expect(client.trackRefund({ invoiceId: 'in_nope', refundId: 're_x' })).rejects.toMatchObject({ code: 'sale_not_found', status: 404 });
  });

  test.each([
    ['amount 0', { invoiceId: 'in_1', refundId: 're_1', amount: 0 }, 'amount'],
    ['amount 10.5', { invoiceId: 'in_1', refundId: 're_1', amount: 10.5 }, 'amount'],
    ['no invoiceId', { invoiceId: '', refundId: 're_1' }, 'invoiceId'],
    ['no refundId', { invoiceId: 'in_1', refundId: '' }, 'refundId'],
  ])('%s is refused before any request', async (_name, input, field) => {
    let requests = 0;
    const transport: Transport = async () => {
      requests++;
      return { status: 200, headers: {}, body: {} };
    };
    const client = new PartnerkitClient({ transport, apiKey: 'pk_live_x' });
    await expect(client.trackRefund(input)).rejects.toMatchObject({ code: 'invalid_request', status: 0, details: { fields: [expect.objectContaining({ field })] } });
    expect(requests).toBe(0);
  });
});
