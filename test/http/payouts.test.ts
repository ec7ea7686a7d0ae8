import { parse } from 'csv-parse/sync';
import { describe, expect, test } from 'vitest';
import { PartnerkitClient } from '../../src/sdk/client.js';
import { takeIntoPayouts } from '../../src/store/commissions.js';
import { insertBatch } from '../../src/store/payouts.js';
import { insertCommissions, type CommissionRow } from '../../src/store/sales.js';
import { ADMIN_TOKEN, buildTestApp, T0, type ProgramFixture, type TestApp } from '../helpers/app.js';
import { FORMULAS } from '../helpers/factories.js';

/**
 * Commission approval and payouts (docs/refunds-and-payouts.md#commission-approval-and-payouts), through the HTTP API with a pinned,
 * movable clock. Sales are 49.99 at 20 %: each earns a commission of 1,000 cents, pending for the
 * program's 30 hold days (until 2026-03-31T12:00:00.000Z for a sale at T0).
 */
const HOLD_END = '2026-03-31T12:00:00.000Z';
const AFTER_HOLD = '2026-04-01T00:00:00.000Z';

type Method = 'GET' | 'POST' | 'PATCH';

async function call(t: TestApp, method: Method, url: string, payload?: object, token = ADMIN_TOKEN) {
  const response = await t.app.inject({ method, url, payload, headers: { authorization: `Bearer ${token}` } });
  const type = response.headers['content-type'];
  return { status: response.statusCode, body: typeof type === 'string' && type.startsWith('text/csv') ? response.body : response.json(), headers: response.headers };
}

/** The answer's body, failing the test unless it is 200. */
async function ok(t: TestApp, method: Method, url: string, payload?: object, token = ADMIN_TOKEN) {
  const response = await call(t, method, url, payload, token);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

const platformError = (status: number, name: string, code: string, message: string, details: unknown = null) => ({
  data: null,
  error: { status, name, code, message, details },
});

/** A second partner of the program with their own lead (customer key `cust_<partner id>`). */
async function secondPartner(t: TestApp, program: ProgramFixture, fields: Record<string, unknown> = {}) {
  const partner = await t.partner(fields);
  const enrollment = await t.enroll(program.id, partner.id);
  await t.lead({ ...program, refCode: enrollment.refCode }, `cust_${partner.id}`);
  return partner.id;
}

let transactions = 0;

/** n sales of 49.99 (unless `fields` say otherwise) by a customer: n commissions of 1,000 cents. */
async function sales(t: TestApp, program: ProgramFixture, customerKey: string, n: number, fields: Record<string, unknown> = {}) {
  for (let i = 0; i < n; i++) await t.sale(program, { transaction_id: `in_${++transactions}`, customer_key: customerKey, ...fields });
}

/** A program (30 hold days, 20 %) whose partner has lead cust_1. */
async function setup(programFields: Record<string, unknown> = {}) {
  const t = await buildTestApp();
  const program = await t.program(programFields);
  await t.lead(program);
  return { t, program };
}

/** A session token of an active member of the program. */
async function memberToken(t: TestApp, programId: number, email = 'finance@example.com'): Promise<string> {
  await t.admin('POST', `/programs/${programId}/members`, { email });
  return (await t.admin('POST', '/sessions', { email, ttlHours: 24 * 30 })).token;
}

/** A clawback as a refund of a paid sale creates it: negative, approved, the sale's partner and currency. */
async function clawback(t: TestApp, program: ProgramFixture, saleId: number, amountCents: number, currency = 'USD'): Promise<number> {
  return t.store.transaction(async (sql) => {
    const id = await t.store.nextId(sql, 'commissions');
    const now = t.clock.now();
    const row: CommissionRow = {
      id, program_id: program.id, sale_id: saleId, partner_program_id: program.partnerProgramId, amount_cents: amountCents, currency,
      status: 'approved', hold_until: now, created_at: now, type: 'clawback', payout_id: null, paid_at: null, reason: null, percent_bp: null,
    };
    await insertCommissions(sql, [row]);
    return id;
  });
}

const commissionsOf = (t: TestApp, program: ProgramFixture, query = '') => ok(t, 'GET', `/api/programs/${program.id}/commissions${query}`);
const statuses = async (t: TestApp, program: ProgramFixture) =>
  (await commissionsOf(t, program)).map((c: { id: number; status: string }) => [c.id, c.status]);

describe('approval by the clock', () => {
  test('auto: pending until hold_until, approved from that instant on, in every read, with no job and nothing stored', async () => {
    const { t, program } = await setup();
    await t.sale(program);
    const pending = {
      id: 1, programId: program.id, partnerId: program.partnerId, saleId: 1, type: 'sale', amountCents: 1000, currency: 'USD', status: 'pending',
      holdUntil: HOLD_END, createdAt: T0, payoutId: null, paidAt: null, reason: null,
    };
    expect(await commissionsOf(t, program)).toEqual([pending]);

    t.clock.set('2026-03-31T11:59:59.999Z');
    expect(await commissionsOf(t, program)).toEqual([pending]);
    expect(await ok(t, 'GET', `/api/programs/${program.id}/payouts/preview`)).toEqual({ payouts: [], waiting: [] });
    expect(await ok(t, 'POST', `/api/programs/${program.id}/payouts`)).toEqual({ batchId: null, payouts: [] });

    t.clock.set(HOLD_END);
    expect(await commissionsOf(t, program)).toEqual([{ ...pending, status: 'approved' }]);
    expect(await commissionsOf(t, program, '?status=approved')).toHaveLength(1);
    expect(await commissionsOf(t, program, '?status=pending')).toEqual([]);
    expect(await ok(t, 'GET', `/api/programs/${program.id}/payouts/preview`)).toEqual({
      payouts: [{ partnerId: program.partnerId, currency: 'USD', amountCents: 1000, commissionCount: 1 }],
      waiting: [],
    });
    // Read, not written: the stored status is still pending.
    expect(await t.count('commissions', "status = 'pending'")).toBe(1);
  });

  test('manual: stays pending after the hold until approved', async () => {
    const { t, program } = await setup({ approval: 'manual' });
    await sales(t, program, 'cust_1', 2);
    t.clock.set(AFTER_HOLD);
    expect(await statuses(t, program)).toEqual([[1, 'pending'], [2, 'pending']]);
    expect(await ok(t, 'GET', `/api/programs/${program.id}/payouts/preview`)).toEqual({ payouts: [], waiting: [] });

    const approved = await ok(t, 'POST', `/api/programs/${program.id}/commissions/approve`, { ids: [2] });
    expect(approved).toEqual([expect.objectContaining({ id: 2, status: 'approved', reason: null })]);
    expect(await statuses(t, program)).toEqual([[1, 'pending'], [2, 'approved']]);
    // Approving again changes nothing and answers the same.
    expect(await ok(t, 'POST', `/api/programs/${program.id}/commissions/approve`, { ids: [2, 2] })).toEqual(approved);
    expect(await ok(t, 'GET', `/api/programs/${program.id}/payouts/preview`)).toEqual({
      payouts: [{ partnerId: program.partnerId, currency: 'USD', amountCents: 1000, commissionCount: 1 }],
      waiting: [],
    });
  });
});

describe('the commission list in pages', () => {
  const ids = (body: Array<{ id: number }>) => body.map((c) => c.id);

  test('limit and offset: the rows of the page by id, the number of matching rows in partnerkit-total-count on every answer', async () => {
    const { t, program } = await setup();
    await sales(t, program, 'cust_1', 4); // commissions 1-4
    const other = await secondPartner(t, program);
    await sales(t, program, `cust_${other}`, 2); // commissions 5-6
    await ok(t, 'POST', `/api/programs/${program.id}/commissions/reject`, { ids: [2] });
    const page = async (query: string) => {
      const response = await call(t, 'GET', `/api/programs/${program.id}/commissions${query}`);
      expect(response.status).toBe(200);
      return [ids(response.body), response.headers['partnerkit-total-count']];
    };
    expect(await page('')).toEqual([[1, 2, 3, 4, 5, 6], '6']);
    expect(await page('?limit=2')).toEqual([[1, 2], '6']);
    expect(await page('?limit=2&offset=2')).toEqual([[3, 4], '6']);
    expect(await page('?limit=4&offset=4')).toEqual([[5, 6], '6']);
    expect(await page('?offset=5')).toEqual([[6], '6']);
    expect(await page('?limit=2&offset=6')).toEqual([[], '6']);
    expect(await page('?limit=1000&offset=100')).toEqual([[], '6']);
    expect(await page('?status=pending&limit=2&offset=1')).toEqual([[3, 4], '5']);
    expect(await page(`?status=pending&partnerId=${other}&limit=1`)).toEqual([[5], '2']);
    expect(await page('?status=paid')).toEqual([[], '0']);
    expect(await page('?status=paid&limit=5&offset=3')).toEqual([[], '0']);
  });

  test.each([
    ['limit=0', 'limit'], ['limit=1001', 'limit'], ['limit=2.5', 'limit'], ['limit=ten', 'limit'], ['limit=-1', 'limit'],
    ['offset=-1', 'offset'], ['offset=1.5', 'offset'], ['offset=x', 'offset'],
  ])('?%s: 400 invalid_request naming %s', async (query, field) => {
    const { t, program } = await setup();
    await t.sale(program);
    const response = await call(t, 'GET', `/api/programs/${program.id}/commissions?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
    expect(response.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    expect(response.headers['partnerkit-total-count']).toBeUndefined();
  });

  test('the SDK: list keeps answering the array, page answers the rows and the total', async () => {
    const { t, program } = await setup();
    await sales(t, program, 'cust_1', 3);
    const client = new PartnerkitClient({ baseUrl: await t.app.listen({ host: '127.0.0.1', port: 0 }), token: ADMIN_TOKEN });
    expect(ids(await client.commissions.list(program.id))).toEqual([1, 2, 3]);
    expect(ids(await client.commissions.list(program.id, { limit: 1, offset: 1 }))).toEqual([2]);
    const { data, total } = await client.commissions.page(program.id, { status: 'pending', limit: 2, offset: 2 });
    expect([ids(data), total]).toEqual([[3], 3]);
    expect(await client.commissions.page(program.id, { status: 'approved' })).toEqual({ data: [], total: 0 });
  });
});

describe('commission review: every id or none', () => {
  test('approve: an id inside its hold, a paid or rejected one is 409 invalid_status naming each; nothing changes', async () => {
    const { t, program } = await setup({ approval: 'manual' });
    await sales(t, program, 'cust_1', 2);
    t.clock.set(AFTER_HOLD);
    await sales(t, program, 'cust_1', 1); // commission 3, held until 2026-05-01
    await ok(t, 'POST', `/api/programs/${program.id}/commissions/reject`, { ids: [1] });
    const response = await call(t, 'POST', `/api/programs/${program.id}/commissions/approve`, { ids: [3, 2, 1] });
    expect(response).toMatchObject({
      status: 409,
      body: platformError(409, 'ConflictError', 'invalid_status', 'Cannot approve commission 1 (rejected), 3 (pending until 2026-05-01T00:00:00.000Z); nothing was changed', {
        commissions: [{ id: 1, status: 'rejected' }, { id: 3, status: 'pending', holdUntil: '2026-05-01T00:00:00.000Z' }],
      }),
    });
    expect(await statuses(t, program)).toEqual([[1, 'rejected'], [2, 'pending'], [3, 'pending']]);
  });

  test("unknown ids and another program's ids are 404 naming them; nothing changes", async () => {
    const { t, program } = await setup({ approval: 'manual' });
    const other = await t.program({ name: 'Other', approval: 'manual' });
    await t.lead(other, 'other_1');
    await sales(t, program, 'cust_1', 1);
    await t.sale(other, { transaction_id: 'o1', customer_key: 'other_1' }); // commission 2, the other program's
    t.clock.set(AFTER_HOLD);
    const response = await call(t, 'POST', `/api/programs/${program.id}/commissions/approve`, { ids: [1, 2, 99] });
    expect(response).toMatchObject({
      status: 404,
      body: platformError(404, 'NotFoundError', 'not_found', `No commission 2, 99 in program ${program.id}; nothing was changed`, { ids: [2, 99] }),
    });
    expect(await statuses(t, program)).toEqual([[1, 'pending']]);
  });

  test('reject: pending and approved, with or without a reason; a retry keeps the first reason; processing and paid are refused', async () => {
    const { t, program } = await setup();
    await sales(t, program, 'cust_1', 4);
    t.clock.set(AFTER_HOLD);
    const rejected = await ok(t, 'POST', `/api/programs/${program.id}/commissions/reject`, { ids: [1], reason: 'Fraudulent order' });
    expect(rejected).toEqual([expect.objectContaining({ id: 1, status: 'rejected', reason: 'Fraudulent order' })]);
    expect(await ok(t, 'POST', `/api/programs/${program.id}/commissions/reject`, { ids: [1], reason: 'Another reason' })).toEqual(rejected);

    const { payouts } = await ok(t, 'POST', `/api/programs/${program.id}/payouts`);
    expect(payouts[0].commissionIds).toEqual([2, 3, 4]);
    await ok(t, 'POST', `/api/payouts/${payouts[0].id}/mark-paid`);
    await sales(t, program, 'cust_1', 1); // commission 5, pending
    expect(await ok(t, 'POST', `/api/programs/${program.id}/commissions/reject`, { ids: [5] })).toEqual([
      expect.objectContaining({ id: 5, status: 'rejected', reason: null }),
    ]);
    const refused = await call(t, 'POST', `/api/programs/${program.id}/commissions/reject`, { ids: [2] });
    expect(refused).toMatchObject({ status: 409, body: { error: { code: 'invalid_status', details: { commissions: [{ id: 2, status: 'paid' }] } } } });
  });

  test.each([
    ['no ids', {}],
    ['an empty list', { ids: [] }],
    ['a zero id', { ids: [0] }],
    ['a string id', { ids: ['1'] }],
  ])('%s: 400 invalid_request', async (_name, body) => {
    const { t, program } = await setup();
    const response = await call(t, 'POST', `/api/programs/${program.id}/commissions/approve`, body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
  });

  test('list filters: status and partner; bad values are 400', async () => {
    const { t, program } = await setup();
    const second = await secondPartner(t, program);
    await sales(t, program, 'cust_1', 1);
    await sales(t, program, `cust_${second}`, 2);
    expect((await commissionsOf(t, program, `?partnerId=${second}`)).map((c: { id: number }) => c.id)).toEqual([2, 3]);
    expect((await commissionsOf(t, program, `?partnerId=${second}&status=approved`))).toEqual([]);
    for (const query of ['?status=open', '?partnerId=0', '?partnerId=x']) {
      expect((await call(t, 'GET', `/api/programs/${program.id}/commissions${query}`)).status).toBe(400);
    }
  });
});

describe('payouts', () => {
  test('preview, create, list, show, mark-paid: exact amounts, one payout per partner and currency, in one batch', async () => {
    const { t, program } = await setup();
    const second = await secondPartner(t, program);
    await sales(t, program, 'cust_1', 3);
    await sales(t, program, `cust_${second}`, 1, { amount_cents: 12_345 }); // 20 % of 123.45: 2,469
    await sales(t, program, `cust_${second}`, 1, { currency: 'EUR', amount_cents: 1001 }); // 200 EUR cents
    t.clock.set(AFTER_HOLD);
    await sales(t, program, 'cust_1', 1); // commission 6, held: not in this payout

    const preview = await ok(t, 'GET', `/api/programs/${program.id}/payouts/preview`);
    expect(preview).toEqual({
      payouts: [
        { partnerId: program.partnerId, currency: 'USD', amountCents: 3000, commissionCount: 3 },
        { partnerId: second, currency: 'EUR', amountCents: 200, commissionCount: 1 },
        { partnerId: second, currency: 'USD', amountCents: 2469, commissionCount: 1 },
      ],
      waiting: [],
    });

    const created = await ok(t, 'POST', `/api/programs/${program.id}/payouts`);
    const base = { batchId: 1, programId: program.id, status: 'processing', createdAt: AFTER_HOLD, paidAt: null };
    expect(created).toEqual({
      batchId: 1,
      payouts: [
        { ...base, id: 1, partnerId: program.partnerId, currency: 'USD', amountCents: 3000, commissionIds: [1, 2, 3] },
        { ...base, id: 2, partnerId: second, currency: 'EUR', amountCents: 200, commissionIds: [5] },
        { ...base, id: 3, partnerId: second, currency: 'USD', amountCents: 2469, commissionIds: [4] },
      ],
    });
    expect(await statuses(t, program)).toEqual([[1, 'processing'], [2, 'processing'], [3, 'processing'], [4, 'processing'], [5, 'processing'], [6, 'pending']]);
    expect((await commissionsOf(t, program, '?status=processing')).map((c: { payoutId: number }) => c.payoutId)).toEqual([1, 1, 1, 3, 2]);
    expect(await ok(t, 'GET', `/api/programs/${program.id}/payouts/preview`)).toEqual({ payouts: [], waiting: [] });
    expect(await ok(t, 'POST', `/api/programs/${program.id}/payouts`)).toEqual({ batchId: null, payouts: [] });
    expect(await ok(t, 'GET', `/api/programs/${program.id}/payouts`)).toEqual(created.payouts);
    expect(await ok(t, 'GET', '/api/payouts/2')).toEqual(created.payouts[1]);

    t.clock.set('2026-04-02T09:30:00.000Z');
    const paid = await ok(t, 'POST', '/api/payouts/1/mark-paid');
    expect(paid).toEqual({ ...created.payouts[0], status: 'paid', paidAt: '2026-04-02T09:30:00.000Z' });
    t.clock.set('2026-04-03T09:30:00.000Z');
    expect(await ok(t, 'POST', '/api/payouts/1/mark-paid')).toEqual(paid); // a retry: the first paidAt stays
    expect((await commissionsOf(t, program, '?status=paid')).map((c: { id: number; paidAt: string }) => [c.id, c.paidAt])).toEqual([
      [1, '2026-04-02T09:30:00.000Z'], [2, '2026-04-02T09:30:00.000Z'], [3, '2026-04-02T09:30:00.000Z'],
    ]);
    expect((await ok(t, 'GET', `/api/programs/${program.id}/payouts?status=processing`)).map((p: { id: number }) => p.id)).toEqual([2, 3]);

    const batch = await ok(t, 'POST', '/api/payout-batches/1/mark-paid');
    expect(batch.payouts.map((p: { id: number; status: string; paidAt: string }) => [p.id, p.status, p.paidAt])).toEqual([
      [1, 'paid', '2026-04-02T09:30:00.000Z'], [2, 'paid', '2026-04-03T09:30:00.000Z'], [3, 'paid', '2026-04-03T09:30:00.000Z'],
    ]);
    expect(await ok(t, 'POST', '/api/payout-batches/1/mark-paid')).toEqual(batch);
    expect(await t.count('commissions', "status = 'paid'")).toBe(5);
  });

  test('cancel: the commissions are approved again and in the next payout; a paid payout cannot be canceled, a canceled one not paid', async () => {
    const { t, program } = await setup();
    await sales(t, program, 'cust_1', 2);
    t.clock.set(AFTER_HOLD);
    const first = (await ok(t, 'POST', `/api/programs/${program.id}/payouts`)).payouts[0];
    const canceled = await ok(t, 'POST', `/api/payouts/${first.id}/cancel`);
    expect(canceled).toEqual({ ...first, status: 'canceled' });
    expect(await ok(t, 'POST', `/api/payouts/${first.id}/cancel`)).toEqual(canceled);
    expect(await commissionsOf(t, program)).toEqual([
      expect.objectContaining({ id: 1, status: 'approved', payoutId: null }),
      expect.objectContaining({ id: 2, status: 'approved', payoutId: null }),
    ]);
    expect(await call(t, 'POST', `/api/payouts/${first.id}/mark-paid`)).toMatchObject({
      status: 409,
      body: platformError(409, 'ConflictError', 'invalid_status', 'Payout 1 is canceled and cannot be marked paid', { payoutId: 1, status: 'canceled' }),
    });

    const second = await ok(t, 'POST', `/api/programs/${program.id}/payouts`);
    expect(second).toEqual({ batchId: 2, payouts: [expect.objectContaining({ id: 2, amountCents: 2000, commissionIds: [1, 2] })] });
    // The canceled payout still names what it took.
    expect((await ok(t, 'GET', '/api/payouts/1')).commissionIds).toEqual([1, 2]);
    await ok(t, 'POST', '/api/payouts/2/mark-paid');
    expect(await call(t, 'POST', '/api/payouts/2/cancel')).toMatchObject({
      status: 409,
      body: { error: { code: 'invalid_status', message: 'Payout 2 is paid and cannot be canceled', details: { payoutId: 2, status: 'paid' } } },
    });
    expect(await statuses(t, program)).toEqual([[1, 'paid'], [2, 'paid']]);
  });

  test('a clawback nets against the next payout; a negative balance waits', async () => {
    const { t, program } = await setup();
    await sales(t, program, 'cust_1', 1);
    t.clock.set(AFTER_HOLD);
    const first = (await ok(t, 'POST', `/api/programs/${program.id}/payouts`)).payouts[0];
    await ok(t, 'POST', `/api/payouts/${first.id}/mark-paid`);

    // The paid sale is refunded: a clawback of its whole commission, before anything else is earned.
    const claw = await clawback(t, program, 1, -1000);
    expect(await ok(t, 'GET', `/api/programs/${program.id}/payouts/preview`)).toEqual({
      payouts: [],
      waiting: [{ partnerId: program.partnerId, currency: 'USD', balanceCents: -1000, reason: 'not_positive' }],
    });
    expect(await ok(t, 'POST', `/api/programs/${program.id}/payouts`)).toEqual({ batchId: null, payouts: [] });

    await sales(t, program, 'cust_1', 1, { amount_cents: 12_500 }); // 2,500
    t.clock.set('2026-05-02T00:00:00.000Z');
    const next = await ok(t, 'POST', `/api/programs/${program.id}/payouts`);
    expect(next.payouts).toEqual([expect.objectContaining({ partnerId: program.partnerId, currency: 'USD', amountCents: 1500, commissionIds: [claw, 3] })]);
    expect(await commissionsOf(t, program, '?status=processing')).toEqual([
      expect.objectContaining({ id: claw, type: 'clawback', amountCents: -1000 }),
      expect.objectContaining({ id: 3, type: 'sale', amountCents: 2500 }),
    ]);
  });

  test('minimum payout: a balance below it waits, and is paid once it reaches it', async () => {
    const { t, program } = await setup({ minPayoutCents: 2000 });
    await sales(t, program, 'cust_1', 1);
    t.clock.set(AFTER_HOLD);
    expect(await ok(t, 'GET', `/api/programs/${program.id}/payouts/preview`)).toEqual({
      payouts: [],
      waiting: [{ partnerId: program.partnerId, currency: 'USD', balanceCents: 1000, reason: 'below_minimum' }],
    });
    expect(await ok(t, 'POST', `/api/programs/${program.id}/payouts`)).toEqual({ batchId: null, payouts: [] });
    await sales(t, program, 'cust_1', 1);
    t.clock.set('2026-05-02T00:00:00.000Z');
    expect((await ok(t, 'POST', `/api/programs/${program.id}/payouts`)).payouts).toEqual([
      expect.objectContaining({ amountCents: 2000, commissionIds: [1, 2] }),
    ]);
  });

  test('a zero balance waits as not_positive', async () => {
    const { t, program } = await setup();
    await sales(t, program, 'cust_1', 1);
    await clawback(t, program, 1, -1000);
    t.clock.set(AFTER_HOLD);
    expect(await ok(t, 'GET', `/api/programs/${program.id}/payouts/preview`)).toEqual({
      payouts: [],
      waiting: [{ partnerId: program.partnerId, currency: 'USD', balanceCents: 0, reason: 'not_positive' }],
    });
  });

  test('two concurrent creates: every commission in exactly one payout; the second takes the rest, here nothing', async () => {
    const { t, program } = await setup();
    const second = await secondPartner(t, program);
    await sales(t, program, 'cust_1', 5);
    await sales(t, program, `cust_${second}`, 5);
    t.clock.set(AFTER_HOLD);
    const [a, b] = await Promise.all([
      ok(t, 'POST', `/api/programs/${program.id}/payouts`),
      ok(t, 'POST', `/api/programs/${program.id}/payouts`),
    ]);
    const batches = [a, b].sort((x, y) => (x.batchId === null ? 1 : 0) - (y.batchId === null ? 1 : 0));
    expect(batches[1]).toEqual({ batchId: null, payouts: [] });
    expect(batches[0].payouts.flatMap((p: { commissionIds: number[] }) => p.commissionIds).sort((x: number, y: number) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(await t.count('payouts')).toBe(2);
    expect(await t.count('(SELECT unnest(commission_ids) FROM payouts) AS ids')).toBe(10);
  });

  test('mark-paid and cancel raced on one payout: exactly one applies', async () => {
    const { t, program } = await setup();
    await sales(t, program, 'cust_1', 3);
    t.clock.set(AFTER_HOLD);
    await ok(t, 'POST', `/api/programs/${program.id}/payouts`);
    const [paid, canceled, paidAgain, batchPaid] = await Promise.all([
      call(t, 'POST', '/api/payouts/1/mark-paid'),
      call(t, 'POST', '/api/payouts/1/cancel'),
      call(t, 'POST', '/api/payouts/1/mark-paid'),
      call(t, 'POST', '/api/payout-batches/1/mark-paid'),
    ]);
    // The writer runs them one at a time: whichever of paying and canceling comes first wins, the other is refused.
    const winner = canceled.status === 200 ? 'canceled' : 'paid';
    expect(batchPaid.status).toBe(200);
    if (winner === 'paid') {
      expect([paid.status, canceled.status, paidAgain.status]).toEqual([200, 409, 200]);
      expect(await statuses(t, program)).toEqual([[1, 'paid'], [2, 'paid'], [3, 'paid']]);
    } else {
      expect([paid.status, paidAgain.status]).toEqual([409, 409]);
      expect(await statuses(t, program)).toEqual([[1, 'approved'], [2, 'approved'], [3, 'approved']]);
    }
    expect((await ok(t, 'GET', '/api/payouts/1')).status).toBe(winner);
    expect(await t.count('payouts', `status = '${winner}'`)).toBe(1);
  });
});

describe('amounts beyond 2^53 − 1 cents (docs/refunds-and-payouts.md#creating-payouts)', () => {
  /** A flat commission so large that two of them pass 2^53 − 1 cents. */
  const HUGE = Number.MAX_SAFE_INTEGER - 10;
  const twoHuge = 2n * BigInt(HUGE); // 18014398509481962

  /** Partner 1 earns two HUGE commissions; a second partner earns 5.00 on product `small`. */
  async function hugeBalance() {
    const { t, program } = await setup({ holdDays: 0, commissionFlatCents: HUGE });
    await t.admin('POST', `/programs/${program.id}/rules`, { productId: 'small', commissionFlatCents: 500 });
    const second = await secondPartner(t, program);
    await sales(t, program, 'cust_1', 2);
    await sales(t, program, `cust_${second}`, 1, { product_id: 'small' });
    return { t, program, second };
  }

  test('payout create refuses the balance with 422 amount_too_large and writes nothing; the preview shows it waiting', async () => {
    const { t, program, second } = await hugeBalance();
    expect(await ok(t, 'GET', `/api/programs/${program.id}/payouts/preview`)).toEqual({
      payouts: [{ partnerId: second, currency: 'USD', amountCents: 500, commissionCount: 1 }],
      waiting: [{ partnerId: program.partnerId, currency: 'USD', balanceCents: Number(twoHuge), reason: 'amount_too_large' }],
    });
    const before = await commissionsOf(t, program);
    expect(await call(t, 'POST', `/api/programs/${program.id}/payouts`)).toMatchObject({
      status: 422,
      body: platformError(
        422, 'UnprocessableEntityError', 'amount_too_large',
        `The balance of partner ${program.partnerId} (USD ${twoHuge} cents) is over 2^53 − 1 cents, more than a payout can hold; nothing was paid`,
        { balances: [{ partnerId: program.partnerId, currency: 'USD', balanceCents: String(twoHuge) }] },
      ),
    });
    expect(await commissionsOf(t, program)).toEqual(before);
    expect(before.map((c: { status: string }) => c.status)).toEqual(['approved', 'approved', 'approved']);
    expect([await t.count('payouts'), await t.count('payout_batches')]).toEqual([0, 0]);
    expect(await ok(t, 'GET', `/api/programs/${program.id}/payouts`)).toEqual([]);

    // Rejecting one of the two brings the balance within range: the next call pays both partners, and the batch id was not used up.
    await ok(t, 'POST', `/api/programs/${program.id}/commissions/reject`, { ids: [2] });
    const created = await ok(t, 'POST', `/api/programs/${program.id}/payouts`);
    expect([created.batchId, created.payouts.map((p: { amountCents: number }) => p.amountCents)]).toEqual([1, [HUGE, 500]]);
  });

  test('a payout stored beyond 2^53 − 1 cents (as earlier versions wrote one) still reads: list, show, preview, mark-paid and export answer 200', async () => {
    const { t, program } = await hugeBalance();
    await t.store.transaction(async (sql) => {
      const now = t.clock.now();
      const [batchId, payoutId] = [await t.store.nextId(sql, 'payout_batches'), await t.store.nextId(sql, 'payouts')];
      await takeIntoPayouts(sql, program.id, now, [{ id: payoutId, partnerId: program.partnerId, currency: 'USD' }]);
      await insertBatch(sql, { id: batchId, programId: program.id, createdAt: now }, payoutId, payoutId);
    });
    const stored = {
      id: 1, batchId: 1, programId: program.id, partnerId: program.partnerId, currency: 'USD', amountCents: Number(twoHuge), commissionIds: [1, 2],
      status: 'processing', createdAt: T0, paidAt: null,
    };
    expect(await ok(t, 'GET', `/api/programs/${program.id}/payouts`)).toEqual([stored]);
    expect(await ok(t, 'GET', '/api/payouts/1')).toEqual(stored);
    expect((await ok(t, 'GET', `/api/programs/${program.id}/payouts/preview`)).waiting).toEqual([]);
    const file = await ok(t, 'GET', '/api/payout-batches/1/export?format=csv');
    expect(file.split('\r\n')[1]).toBe(`${program.partnerId},Partner,,,USD,180143985094819.62,2,1`);
    expect(await ok(t, 'POST', '/api/payouts/1/mark-paid')).toEqual({ ...stored, status: 'paid', paidAt: T0 });
  });
});

describe('program settings', () => {
  test('create and update show approval and minPayoutCents; every setting of create can change; the next sale follows them', async () => {
    const t = await buildTestApp();
    const created = await t.admin('POST', '/programs', { name: 'Acme', approval: 'manual', minPayoutCents: 5000 });
    expect(created).toMatchObject({ approval: 'manual', minPayoutCents: 5000 });
    const updated = await ok(t, 'PATCH', `/api/admin/programs/${created.id}`, {
      name: 'Acme 2', commissionFlatCents: 700, attributionWindowDays: 30, holdDays: 7, recurringMonths: 12, approval: 'auto', minPayoutCents: 0,
      landingUrl: 'HTTPS://Shop.Example:443/welcome', fraudRules: { refundRate: 'off' }, stripeApiKey: 'rk_test_51SettingsKey000',
      applicationsOpen: false, autoApprove: true,
    });
    expect(updated).toEqual({
      id: created.id, name: 'Acme 2', commission: { type: 'flat', flatCents: 700 }, attributionWindowDays: 30, holdDays: 7, recurringMonths: 12,
      webhookSecret: created.webhookSecret, createdAt: T0, productRules: [], approval: 'auto', minPayoutCents: 0, landingUrl: 'https://shop.example/welcome',
      fraudRules: { selfReferral: 'hold', disposableEmail: 'flag', fastConversion: 'flag', refundRate: 'off' }, stripeApiKeySet: true,
      applicationsOpen: false, autoApprove: true,
    });
    expect(await ok(t, 'PATCH', `/api/admin/programs/${created.id}`, { recurringMonths: null, commissionPercent: 12.5 })).toMatchObject({
      name: 'Acme 2', commission: { type: 'percent', percent: 12.5 }, recurringMonths: null, holdDays: 7,
    });
    expect(await t.admin('GET', `/programs/${created.id}`)).toMatchObject({ name: 'Acme 2', approval: 'auto', minPayoutCents: 0 });

    // The sale path reads the program from its cache: it sees the update.
    const partner = await t.partner();
    const enrollment = await t.enroll(created.id, partner.id);
    await t.lead({ refCode: enrollment.refCode, apiKey: created.apiKey });
    await t.sale({ apiKey: created.apiKey }, { amount_cents: 10_000 });
    await ok(t, 'PATCH', `/api/admin/programs/${created.id}`, { holdDays: 1, commissionFlatCents: 333 });
    await t.sale({ apiKey: created.apiKey }, { transaction_id: 'in_2', amount_cents: 10_000 });
    expect((await commissionsOf(t, { id: created.id } as ProgramFixture)).map((c: { amountCents: number; holdUntil: string }) => [c.amountCents, c.holdUntil])).toEqual([
      [1250, '2026-03-08T12:00:00.000Z'],
      [333, '2026-03-02T12:00:00.000Z'],
    ]);
  });

  test('switching auto to manual keeps what the clock approved; back to auto approves what is past its hold', async () => {
    const { t, program } = await setup();
    await sales(t, program, 'cust_1', 1);
    t.clock.set(AFTER_HOLD);
    await sales(t, program, 'cust_1', 1); // commission 2, inside its hold
    await ok(t, 'PATCH', `/api/admin/programs/${program.id}`, { approval: 'manual' });
    t.clock.set('2026-06-01T00:00:00.000Z');
    expect(await statuses(t, program)).toEqual([[1, 'approved'], [2, 'pending']]);
    await ok(t, 'PATCH', `/api/admin/programs/${program.id}`, { approval: 'auto' });
    expect(await statuses(t, program)).toEqual([[1, 'approved'], [2, 'approved']]);
  });

  test.each([
    ['nothing to change', {}],
    ['both commission kinds', { commissionPercent: 10, commissionFlatCents: 100 }],
    ['an unknown approval mode', { approval: 'sometimes' }],
    ['a negative minimum', { minPayoutCents: -1 }],
    ['an empty name', { name: '' }],
  ])('update with %s: 400 invalid_request, nothing changed', async (_name, body) => {
    const t = await buildTestApp();
    const created = await t.admin('POST', '/programs', { name: 'Acme' });
    const response = await call(t, 'PATCH', `/api/admin/programs/${created.id}`, body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
    expect(await t.admin('GET', `/programs/${created.id}`)).toMatchObject({ name: 'Acme', approval: 'auto', minPayoutCents: 0 });
  });

  test('an update naming no setting: 400 on body', async () => {
    const t = await buildTestApp();
    const created = await t.admin('POST', '/programs', { name: 'Acme' });
    expect(await call(t, 'PATCH', `/api/admin/programs/${created.id}`, {})).toMatchObject({
      status: 400,
      body: platformError(400, 'ValidationError', 'invalid_request', 'Invalid request: body: give at least one setting to change', {
        fields: [{ field: 'body', message: 'give at least one setting to change' }],
      }),
    });
  });

  test('update of an unknown program: 404', async () => {
    const t = await buildTestApp();
    expect(await call(t, 'PATCH', '/api/admin/programs/9', { name: 'X' })).toMatchObject({ status: 404, body: { error: { message: 'Program 9 not found' } } });
  });
});

describe('partner payout details', () => {
  test('update: payout method and e-mail (lower-cased), name and e-mail; null clears; a taken e-mail is 409; unknown partner 404', async () => {
    const t = await buildTestApp();
    const jane = await t.admin('POST', '/partners', { name: 'Jane', email: 'jane@example.com' });
    expect(jane).toEqual({ id: 1, name: 'Jane', email: 'jane@example.com', payoutMethod: null, payoutEmail: null, status: 'active' });
    await t.admin('POST', '/partners', { name: 'Bob', email: 'bob@example.com' });
    expect(await ok(t, 'PATCH', '/api/admin/partners/1', { payoutMethod: 'paypal', payoutEmail: 'Jane.Pay@Example.com' })).toEqual({
      ...jane, payoutMethod: 'paypal', payoutEmail: 'jane.pay@example.com',
    });
    expect(await ok(t, 'PATCH', '/api/admin/partners/1', { name: 'Jane Doe', email: 'JD@example.com', payoutMethod: null })).toEqual({
      id: 1, name: 'Jane Doe', email: 'jd@example.com', payoutMethod: null, payoutEmail: 'jane.pay@example.com', status: 'active',
    });
    expect(await ok(t, 'PATCH', '/api/admin/partners/1', { email: 'jd@example.com' })).toMatchObject({ email: 'jd@example.com' });
    expect(await call(t, 'PATCH', '/api/admin/partners/1', { email: 'bob@example.com' })).toMatchObject({ status: 409, body: { error: { code: 'conflict' } } });
    expect(await call(t, 'PATCH', '/api/admin/partners/9', { name: 'X' })).toMatchObject({ status: 404, body: { error: { message: 'Partner 9 not found' } } });
    for (const body of [{}, { payoutMethod: 'cheque' }, { payoutEmail: 'nope' }]) {
      expect((await call(t, 'PATCH', '/api/admin/partners/1', body)).status).toBe(400);
    }
    expect(await t.store.read((sql) => sql.all('SELECT id, name, email, payout_method, payout_email FROM partners ORDER BY id'))).toEqual([
      { id: 1, name: 'Jane Doe', email: 'jd@example.com', payout_method: null, payout_email: 'jane.pay@example.com' },
      { id: 2, name: 'Bob', email: 'bob@example.com', payout_method: null, payout_email: null },
    ]);
  });
});

describe('exports', () => {
  /**
   * A batch of four payouts: Ann (PayPal, e-mail), "Bob, Jr." (Wise, e-mail), Cy (no payout e-mail),
   * Di (manual, e-mail) — in USD — and Ann's EUR payout.
   */
  async function batch() {
    const { t, program } = await setup();
    await t.admin('PATCH', `/partners/${program.partnerId}`, { name: 'Ann', payoutMethod: 'paypal', payoutEmail: 'ann.pay@example.com' });
    const bob = await secondPartner(t, program, { name: 'Bob "the builder", Jr.' });
    await t.admin('PATCH', `/partners/${bob}`, { payoutMethod: 'wise', payoutEmail: 'bob@wise.example' });
    const cy = await secondPartner(t, program, { name: 'Cy' });
    const di = await secondPartner(t, program, { name: 'Di' });
    await t.admin('PATCH', `/partners/${di}`, { payoutMethod: 'manual', payoutEmail: 'di@example.com' });
    await sales(t, program, 'cust_1', 2, { amount_cents: 123_456 }); // 24,691 × 2
    await sales(t, program, 'cust_1', 1, { currency: 'EUR', amount_cents: 500 }); // 100
    await sales(t, program, `cust_${bob}`, 1, { amount_cents: 5 }); // 1
    await sales(t, program, `cust_${cy}`, 1); // 1,000
    await sales(t, program, `cust_${di}`, 1); // 1,000
    t.clock.set(AFTER_HOLD);
    const created = await ok(t, 'POST', `/api/programs/${program.id}/payouts`);
    expect(created.payouts.map((p: { id: number; partnerId: number; currency: string; amountCents: number }) => [p.id, p.partnerId, p.currency, p.amountCents])).toEqual([
      [1, 1, 'EUR', 100], [2, 1, 'USD', 49_382], [3, bob, 'USD', 1], [4, cy, 'USD', 1000], [5, di, 'USD', 1000],
    ]);
    return { t, program, bob, cy, di };
  }

  test('csv: every processing payout of the batch, RFC 4180 quoting, CRLF, two decimals; nothing skipped', async () => {
    const { t } = await batch();
    const response = await call(t, 'GET', '/api/payout-batches/1/export?format=csv');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(response.headers['content-disposition']).toBe('attachment; filename="payout-batch-1-csv.csv"');
    expect(response.headers['partnerkit-exported-payouts']).toBe('1,2,3,4,5');
    expect(response.headers['partnerkit-skipped-payouts']).toBe('');
    expect(response.body).toBe(
      'partner_id,partner_name,payout_email,payout_method,currency,amount,commission_count,payout_id\r\n' +
        '1,Ann,ann.pay@example.com,paypal,EUR,1.00,1,1\r\n' +
        '1,Ann,ann.pay@example.com,paypal,USD,493.82,2,2\r\n' +
        '2,"Bob ""the builder"", Jr.",bob@wise.example,wise,USD,0.01,1,3\r\n' +
        '3,Cy,,,USD,10.00,1,4\r\n' +
        '4,Di,di@example.com,manual,USD,10.00,1,5\r\n',
    );
  });

  test('paypal: one currency per file; partners without a payout e-mail or with another method are skipped and named', async () => {
    const { t } = await batch();
    const mixed = await call(t, 'GET', '/api/payout-batches/1/export?format=paypal');
    expect(mixed).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_request', details: { fields: [{ field: 'currency', message: 'batch 1 pays EUR and USD; a paypal file takes one currency: give currency' }] } } },
    });
    const usd = await call(t, 'GET', '/api/payout-batches/1/export?format=paypal&currency=usd');
    expect(usd.status).toBe(200);
    expect(usd.body).toBe('ann.pay@example.com,493.82,USD,pk-payout-2,Partner commission payout 2,PAYPAL\r\n');
    expect(usd.headers['partnerkit-exported-payouts']).toBe('2');
    expect(usd.headers['partnerkit-skipped-payouts']).toBe('3,4,5');
    expect(usd.headers['partnerkit-skipped-reasons']).toBe('other_payout_method,no_payout_email,other_payout_method');
    const eur = await call(t, 'GET', '/api/payout-batches/1/export?format=paypal&currency=EUR');
    expect(eur.body).toBe('ann.pay@example.com,1.00,EUR,pk-payout-1,Partner commission payout 1,PAYPAL\r\n');
    expect(eur.headers['partnerkit-skipped-payouts']).toBe('');
  });

  test('wise: the send-by-email template; paid and canceled payouts are not exported', async () => {
    const { t, cy } = await batch();
    await t.admin('PATCH', `/partners/${cy}`, { payoutEmail: 'cy@example.com' });
    const response = await call(t, 'GET', '/api/payout-batches/1/export?format=wise&currency=USD');
    expect(response.body).toBe(
      'name,recipientEmail,paymentReference,receiverType,amountCurrency,amount,sourceCurrency,targetCurrency\r\n' +
        '"Bob ""the builder"", Jr.",bob@wise.example,pk-payout-3,PERSON,target,0.01,USD,USD\r\n' +
        'Cy,cy@example.com,pk-payout-4,PERSON,target,10.00,USD,USD\r\n',
    );
    expect(response.headers['partnerkit-skipped-payouts']).toBe('2,5');
    await ok(t, 'POST', '/api/payouts/3/mark-paid');
    await ok(t, 'POST', '/api/payouts/4/cancel');
    const after = await call(t, 'GET', '/api/payout-batches/1/export?format=wise&currency=USD');
    expect(after.body).toBe('name,recipientEmail,paymentReference,receiverType,amountCurrency,amount,sourceCurrency,targetCurrency\r\n');
    expect(after.headers['partnerkit-skipped-payouts']).toBe('2,5');
  });

  test('the SDK over HTTP: the file as text (an empty one too), the exported and skipped payouts from the headers', async () => {
    const { t } = await batch();
    const client = new PartnerkitClient({ baseUrl: await t.app.listen({ host: '127.0.0.1', port: 0 }), token: ADMIN_TOKEN });
    expect(await client.payouts.export(1, { format: 'paypal', currency: 'EUR' })).toEqual({
      file: 'ann.pay@example.com,1.00,EUR,pk-payout-1,Partner commission payout 1,PAYPAL\r\n',
      exportedPayoutIds: [1],
      skipped: [],
    });
    await client.payouts.markPaid(2);
    expect(await client.payouts.export(1, { format: 'paypal', currency: 'USD' })).toEqual({
      file: '',
      exportedPayoutIds: [],
      skipped: [{ payoutId: 3, reason: 'other_payout_method' }, { payoutId: 4, reason: 'no_payout_email' }, { payoutId: 5, reason: 'other_payout_method' }],
    });
    await expect(client.payouts.export(9, { format: 'csv' })).rejects.toMatchObject({ status: 404, code: 'not_found', message: 'Payout batch 9 not found' });
  });

  test("csv, paypal and wise: a partner name starting with = + - @ tab or CR gets a leading '; amounts stay numbers", async () => {
    const { t, program } = await setup();
    await t.admin('PATCH', `/partners/${program.partnerId}`, { name: 'Ann', payoutEmail: 'ann@example.com' });
    for (const name of FORMULAS) {
      const partner = await secondPartner(t, program, { name });
      await t.admin('PATCH', `/partners/${partner}`, { payoutEmail: `p${partner}@example.com` });
      await sales(t, program, `cust_${partner}`, 1);
    }
    t.clock.set(AFTER_HOLD);
    await ok(t, 'POST', `/api/programs/${program.id}/payouts`);
    const file = async (format: string) => parse((await call(t, 'GET', `/api/payout-batches/1/export?format=${format}&currency=USD`)).body) as string[][];
    const neutral = FORMULAS.map((name) => `'${name}`);
    expect((await file('csv')).slice(1).map((r) => [r[1], r[5]])).toEqual(neutral.map((name) => [name, '10.00']));
    expect((await file('wise')).slice(1).map((r) => [r[0], r[5]])).toEqual(neutral.map((name) => [name, '10.00']));
    // PayPal's file names no partner: its cells are e-mails, amounts and partnerkit's own texts.
    for (const row of await file('paypal')) for (const cell of row) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
  });

  test.each([['format=pdf'], [''], ['format=csv&currency=GBP']])('?%s: 400 invalid_request', async (query) => {
    const { t } = await batch();
    expect((await call(t, 'GET', `/api/payout-batches/1/export?${query}`)).status).toBe(400);
  });
});

describe("another program's payouts and batches", () => {
  test('a member of one program gets 404 for the payouts and batches of another, 403 for its program routes; the admin sees both', async () => {
    const { t, program } = await setup();
    const other = await t.program({ name: 'Other' });
    await t.lead(other, 'other_1');
    await sales(t, program, 'cust_1', 1);
    await t.sale(other, { transaction_id: 'o1', customer_key: 'other_1' });
    t.clock.set(AFTER_HOLD);
    await ok(t, 'POST', `/api/programs/${program.id}/payouts`); // payout 1, batch 1
    await ok(t, 'POST', `/api/programs/${other.id}/payouts`); // payout 2, batch 2
    const token = await memberToken(t, program.id);

    expect(await ok(t, 'GET', '/api/payouts/1', undefined, token)).toMatchObject({ id: 1, programId: program.id });
    const notFound = (what: string) => platformError(404, 'NotFoundError', 'not_found', what);
    for (const [method, url, message] of [
      ['GET', '/api/payouts/2', 'Payout 2 not found'],
      ['POST', '/api/payouts/2/mark-paid', 'Payout 2 not found'],
      ['POST', '/api/payouts/2/cancel', 'Payout 2 not found'],
      ['POST', '/api/payout-batches/2/mark-paid', 'Payout batch 2 not found'],
      ['GET', '/api/payout-batches/2/export?format=csv', 'Payout batch 2 not found'],
      ['GET', '/api/payouts/3', 'Payout 3 not found'],
      ['GET', '/api/payout-batches/3/export?format=csv', 'Payout batch 3 not found'],
    ] as const) {
      expect(await call(t, method, url, undefined, token), url).toMatchObject({ status: 404, body: notFound(message) });
    }
    for (const [method, url] of [
      ['GET', `/api/programs/${other.id}/commissions`],
      ['GET', `/api/programs/${other.id}/payouts`],
      ['GET', `/api/programs/${other.id}/payouts/preview`],
      ['POST', `/api/programs/${other.id}/payouts`],
      ['GET', `/api/programs/${other.id}/partners`],
    ] as const) {
      expect((await call(t, method, url, undefined, token)).body.error.code, url).toBe('forbidden');
    }
    expect((await call(t, 'POST', `/api/programs/${other.id}/commissions/approve`, { ids: [2] }, token)).status).toBe(403);
    expect((await call(t, 'GET', '/api/programs/99/commissions', undefined, token)).status).toBe(404);
    expect(await ok(t, 'GET', '/api/payouts/2')).toMatchObject({ id: 2, status: 'processing' });
    // Nothing of the other program changed.
    expect(await t.count('payouts', "status = 'processing'")).toBe(2);

    // A removed member loses access: the removal ends the session, and a new one finds nothing.
    await t.admin('POST', `/programs/${program.id}/members/remove`, { email: 'finance@example.com' });
    expect((await call(t, 'GET', '/api/payouts/1', undefined, token)).status).toBe(401);
    const after = (await t.admin('POST', '/sessions', { email: 'finance@example.com' })).token;
    expect((await call(t, 'GET', '/api/payouts/1', undefined, after)).status).toBe(404);
  });
});

describe("the program's partners", () => {
  test('each enrolled partner with their name, e-mail, referral code, status and enrollment time, by partner id; a member reads them, an unknown program is 404', async () => {
    const { t, program } = await setup();
    const other = await t.program({ name: 'Other' }); // partner 2, enrolled in the other program only
    const ada = await t.partner({ name: 'Ada Lovelace' });
    const enrollment = await t.enroll(program.id, ada.id);
    const token = await memberToken(t, program.id);
    const expected = [
      { partnerId: program.partnerId, name: 'Partner', email: 'partner1@example.com', payoutMethod: null, refCode: program.refCode, status: 'active', enrolledAt: T0 },
      { partnerId: ada.id, name: 'Ada Lovelace', email: ada.email, payoutMethod: null, refCode: enrollment.refCode, status: 'active', enrolledAt: T0 },
    ];
    expect(await ok(t, 'GET', `/api/programs/${program.id}/partners`, undefined, token)).toEqual(expected);
    expect(await ok(t, 'GET', `/api/programs/${other.id}/partners`)).toEqual([
      { partnerId: other.partnerId, name: 'Partner', email: 'partner2@example.com', payoutMethod: null, refCode: other.refCode, status: 'active', enrolledAt: T0 },
    ]);
    expect(await call(t, 'GET', '/api/programs/99/partners')).toMatchObject({ status: 404, body: platformError(404, 'NotFoundError', 'not_found', 'Program 99 not found') });
    // The SDK's call answers the same list.
    const client = new PartnerkitClient({ baseUrl: await t.app.listen({ host: '127.0.0.1', port: 0 }), token });
    expect(await client.programPartners.list(program.id)).toEqual(expected);
  });
});
