import { describe, expect, test } from 'vitest';
import { buildTestApp, T0, withCustomer, type ProgramFixture, type TestApp } from '../helpers/app.js';
import { saleFields as sale } from '../helpers/factories.js';

const SALE = '/api/v1/track/sale';

async function nothingStored(t: TestApp) {
  expect(await t.count('sale_events')).toBe(0);
  expect(await t.count('commissions')).toBe(0);
  expect(await t.count('test_sale_events')).toBe(0);
  expect(await t.count('sale_transactions')).toBe(0);
}

describe('POST /api/v1/track/sale: success', () => {
  test('records the sale and a pending commission of 20 % (rounded half up), and converts the customer', async () => {
    const { t, program, customerId } = await withCustomer();
    const response = await t.post(SALE, sale({ tax_cents: 500, product_id: 'basic', provider: 'stripe', provider_payment_id: 'pi_1' }), program.apiKey);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, sale_id: 1, commission_id: 1, message: 'Sale and commission recorded' });

    const saleRow = await t.store.read((sql) => sql.one('SELECT * FROM sale_events WHERE id = 1'));
    expect(saleRow).toMatchObject({
      program_id: program.id, customer_id: customerId, partner_program_id: program.partnerProgramId, transaction_id: 'in_1',
      amount_cents: 4999, tax_cents: 500, currency: 'USD', sale_type: 'payment', is_recurring: false, product_id: 'basic',
      provider: 'stripe', provider_payment_id: 'pi_1', source: 'api', status: 'paid', occurred_at: null,
    });
    const commission = await t.store.read((sql) => sql.one('SELECT * FROM commissions WHERE id = 1'));
    // 20 % of 4999 = 999.8 → 1000 cents; pending for the 30 hold days.
    expect(commission).toMatchObject({ sale_id: 1, partner_program_id: program.partnerProgramId, amount_cents: 1000, currency: 'USD', status: 'pending' });
    expect((commission!.hold_until as Date).toISOString()).toBe('2026-03-31T12:00:00.000Z');
    expect((commission!.created_at as Date).toISOString()).toBe(T0);

    const customer = await t.store.read((sql) => sql.one('SELECT status, first_purchase_date FROM customers WHERE id = $1', [customerId]));
    expect(customer!.status).toBe('conversion');
    expect((customer!.first_purchase_date as Date).toISOString()).toBe(T0);
  });

  test('a second sale keeps the first purchase date', async () => {
    const { t, program, customerId } = await withCustomer();
    await t.post(SALE, sale(), program.apiKey);
    t.clock.advanceDays(3);
    expect((await t.post(SALE, sale({ transaction_id: 'in_2' }), program.apiKey)).json().sale_id).toBe(2);
    const customer = await t.store.read((sql) => sql.one('SELECT first_purchase_date FROM customers WHERE id = $1', [customerId]));
    expect((customer!.first_purchase_date as Date).toISOString()).toBe(T0);
  });

  test('click_id attributes when customer_key is absent or unknown', async () => {
    const { t, program, clickId } = await withCustomer();
    const byClick = await t.post(SALE, { transaction_id: 'in_1', amount_cents: 100, click_id: clickId }, program.apiKey);
    expect(byClick.json()).toMatchObject({ sale_id: 1, commission_id: 1 });
    const unknownKey = await t.post(SALE, { transaction_id: 'in_2', amount_cents: 100, customer_key: 'nobody', click_id: clickId }, program.apiKey);
    expect(unknownKey.json()).toMatchObject({ sale_id: 2, commission_id: 2 });
  });

  test('currency is case-insensitive and stored upper-case; occurred_at with an offset is stored in UTC', async () => {
    const { t, program } = await withCustomer();
    const response = await t.post(SALE, sale({ currency: 'eur', occurred_at: '2026-03-01T10:30:00+02:00' }), program.apiKey);
    expect(response.statusCode).toBe(200);
    const row = await t.store.read((sql) => sql.one('SELECT currency, occurred_at FROM sale_events'));
    expect(row!.currency).toBe('EUR');
    expect((row!.occurred_at as Date).toISOString()).toBe('2026-03-01T08:30:00.000Z');
  });

  test('line_items are stored as given; unknown fields are ignored', async () => {
    const { t, program } = await withCustomer();
    const items = [{ sku: 'A', qty: 2 }, { sku: 'B', note: 'ünïcödé' }];
    expect((await t.post(SALE, sale({ line_items: items, surprise: true }), program.apiKey)).statusCode).toBe(200);
    const row = await t.store.read((sql) => sql.one<{ line_items: string }>('SELECT line_items FROM sale_events'));
    expect(JSON.parse(row!.line_items)).toEqual(items);
  });

  test('sends no CORS headers: browsers cannot call it', async () => {
    const { t, program } = await withCustomer();
    const preflight = await t.app.inject({
      method: 'OPTIONS', url: SALE, headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    const response = await t.app.inject({
      method: 'POST', url: SALE, payload: sale(), headers: { origin: 'https://shop.example', authorization: `Bearer ${program.apiKey}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('commission rules (docs/sales.md#commission)', () => {
  test.each([
    // [percent, amount, expected cents]
    [20, 4999, 1000], // 999.8
    [25, 2, 1], // 0.5 rounds up
    [50, 1, 1], // 0.5
    [12.5, 4, 1], // 0.5
    [12.5, 12, 2], // 1.5
    [12.5, 11, 1], // 1.375
    [33.33, 100, 33], // 33.33
    [10, Number.MAX_SAFE_INTEGER, 900719925474099], // integer arithmetic, no float drift
  ])('a %s percent rule on %s cents pays %s cents', async (percent, amount, expected) => {
    const { t, program } = await withCustomer({ commissionPercent: percent });
    expect((await t.post(SALE, sale({ amount_cents: amount }), program.apiKey)).statusCode).toBe(200);
    expect((await t.store.read((sql) => sql.one('SELECT amount_cents FROM commissions')))!.amount_cents).toBe(expected);
  });

  test('a flat program pays the flat amount whatever the sale', async () => {
    const { t, program } = await withCustomer({ commissionFlatCents: 750 });
    await t.post(SALE, sale({ amount_cents: 100_000 }), program.apiKey);
    expect((await t.store.read((sql) => sql.one('SELECT amount_cents FROM commissions')))!.amount_cents).toBe(750);
  });

  test('a per-product rule overrides the program default; other products keep the default', async () => {
    const { t, program } = await withCustomer({ commissionPercent: 10 });
    await t.admin('POST', `/programs/${program.id}/rules`, { productId: 'pro', commissionPercent: 30 });
    await t.admin('POST', `/programs/${program.id}/rules`, { productId: 'addon', commissionFlatCents: 200 });
    await t.post(SALE, sale({ transaction_id: 'a', amount_cents: 10_000, product_id: 'pro' }), program.apiKey);
    await t.post(SALE, sale({ transaction_id: 'b', amount_cents: 10_000, product_id: 'addon' }), program.apiKey);
    await t.post(SALE, sale({ transaction_id: 'c', amount_cents: 10_000, product_id: 'other' }), program.apiKey);
    await t.post(SALE, sale({ transaction_id: 'd', amount_cents: 10_000 }), program.apiKey);
    const rows = await t.store.read((sql) => sql.all<{ amount_cents: number }>('SELECT amount_cents FROM commissions ORDER BY id'));
    expect(rows.map((r) => r.amount_cents)).toEqual([3000, 200, 1000, 1000]);
  });

  test('hold days set hold_until = receipt + hold days', async () => {
    const { t, program } = await withCustomer({ holdDays: 7 });
    await t.post(SALE, sale(), program.apiKey);
    const row = await t.store.read((sql) => sql.one('SELECT status, hold_until FROM commissions'));
    expect(row!.status).toBe('pending');
    expect((row!.hold_until as Date).toISOString()).toBe('2026-03-08T12:00:00.000Z');
  });

  async function renewals(recurringMonths: number | null, monthsLater: string[]) {
    const { t, program } = await withCustomer({ recurringMonths, attributionWindowDays: 3650 });
    const first = await t.post(SALE, sale({ transaction_id: 'inv_0', subscription_id: 'sub_1', sale_type: 'subscription' }), program.apiKey);
    expect(first.statusCode).toBe(200);
    const answers = [first.json()];
    for (const [i, at] of monthsLater.entries()) {
      t.clock.set(at);
      const response = await t.post(
        SALE,
        sale({ transaction_id: `inv_${i + 1}`, subscription_id: 'sub_1', sale_type: 'subscription', is_recurring: true }),
        program.apiKey,
      );
      expect(response.statusCode).toBe(200);
      answers.push(response.json());
    }
    return answers.map((a) => a.commission_id !== null);
  }

  test('recurring duration of 12 months: renewals before first sale + 12 months earn, later ones do not', async () => {
    const earned = await renewals(12, ['2027-02-01T12:00:00.000Z', '2027-03-01T11:59:59.999Z', '2027-03-01T12:00:00.000Z', '2027-04-01T12:00:00.000Z']);
    expect(earned).toEqual([true, true, true, false, false]);
  });

  test('recurring duration 0: only the first payment earns', async () => {
    expect(await renewals(0, ['2026-04-01T12:00:00.000Z'])).toEqual([true, false]);
  });

  test('recurring duration null: every renewal earns', async () => {
    expect(await renewals(null, ['2027-04-01T12:00:00.000Z', '2029-04-01T12:00:00.000Z'])).toEqual([true, true, true]);
  });

  test('a renewal past the duration still records the sale (sale_id set, commission_id null)', async () => {
    const { t, program } = await withCustomer({ recurringMonths: 1 });
    await t.post(SALE, sale({ transaction_id: 'inv_0', subscription_id: 'sub_9' }), program.apiKey);
    t.clock.advanceDays(40);
    const renewal = await t.post(SALE, sale({ transaction_id: 'inv_1', subscription_id: 'sub_9', is_recurring: true }), program.apiKey);
    expect(renewal.json()).toEqual({ success: true, sale_id: 2, commission_id: null, message: 'Sale recorded; the recurring commission period has ended' });
    expect(await t.count('sale_events')).toBe(2);
    expect(await t.count('commissions')).toBe(1);
  });
});

describe('attribution window (pinned clock)', () => {
  test('inside the window (exactly 90 days after the click) the sale is recorded', async () => {
    const { t, program } = await withCustomer();
    t.clock.advanceDays(90);
    expect((await t.post(SALE, sale(), program.apiKey)).json()).toMatchObject({ sale_id: 1, commission_id: 1 });
  });

  test('after the window: success with null ids, nothing recorded, transaction remembered (409 with sale_id null)', async () => {
    const { t, program, customerId } = await withCustomer();
    t.clock.set('2026-05-30T12:00:00.001Z'); // 90 days + 1 ms after the click
    const response = await t.post(SALE, sale(), program.apiKey);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, sale_id: null, commission_id: null, message: 'Attribution window expired; no sale or commission recorded' });
    expect(await t.count('sale_events')).toBe(0);
    expect(await t.count('commissions')).toBe(0);
    expect((await t.store.read((sql) => sql.one('SELECT status FROM customers WHERE id = $1', [customerId])))!.status).toBe('lead');

    const retry = await t.post(SALE, sale(), program.apiKey);
    expect(retry.statusCode).toBe(409);
    expect(retry.json().error).toMatchObject({ code: 'duplicate_transaction', details: { sale_id: null } });
  });

  test('the window runs from the click, not from the later signup', async () => {
    const t = await buildTestApp();
    const program = await t.program({ attributionWindowDays: 30 });
    const clickId = await t.click(program);
    t.clock.advanceDays(20);
    await t.post('/api/v1/track/lead', { customer_key: 'late', click_id: clickId }, program.apiKey);
    t.clock.advanceDays(11); // 31 days after the click, 11 after signup
    expect((await t.post(SALE, sale({ customer_key: 'late' }), program.apiKey)).json().sale_id).toBeNull();
  });
});

describe('test mode (docs/sales.md#test-mode)', () => {
  const triggers: Array<[string, (p: ProgramFixture) => string, Record<string, unknown>]> = [
    ['a test API key', (p) => p.testApiKey, {}],
    ['additional_data.test_mode', (p) => p.apiKey, { additional_data: { test_mode: true } }],
    ['livemode false', (p) => p.apiKey, { livemode: false }],
  ];

  test.each(triggers)('%s records a test sale only: no commission, no customer change', async (_name, key, extra) => {
    const { t, program, customerId } = await withCustomer();
    const response = await t.post(SALE, sale(extra), key(program));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      success: true, message: 'Test sale recorded; no commission created', data: { eventId: 1, programId: program.id, test_mode: true },
    });
    expect(await t.count('test_sale_events')).toBe(1);
    expect(await t.count('sale_events')).toBe(0);
    expect(await t.count('commissions')).toBe(0);
    expect((await t.store.read((sql) => sql.one('SELECT status FROM customers WHERE id = $1', [customerId])))!.status).toBe('lead');
  });

  test('transaction_id, amount_cents and attribution are optional in test mode, but validated when present', async () => {
    const { t, program } = await withCustomer();
    expect((await t.post(SALE, {}, program.testApiKey)).statusCode).toBe(200);
    expect((await t.post(SALE, { customer_key: 'nobody' }, program.testApiKey)).statusCode).toBe(200);
    const bad = await t.post(SALE, { amount_cents: 0 }, program.testApiKey);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details.fields).toEqual([{ field: 'amount_cents', message: expect.any(String) }]);
    expect(await t.count('test_sale_events')).toBe(2);
  });

  test('livemode true does not force a live sale on a test key', async () => {
    const { t, program } = await withCustomer();
    expect((await t.post(SALE, sale({ livemode: true }), program.testApiKey)).json().data.test_mode).toBe(true);
  });

  test('test and live transaction ids are separate namespaces; test duplicates are 409', async () => {
    const { t, program } = await withCustomer();
    expect((await t.post(SALE, sale(), program.testApiKey)).statusCode).toBe(200);
    expect((await t.post(SALE, sale(), program.apiKey)).json().sale_id).toBe(1);
    const dup = await t.post(SALE, sale(), program.testApiKey);
    expect(dup.statusCode).toBe(409);
    expect(dup.json().error.details).toEqual({ sale_id: 1 });
  });
});

describe('errors, in the order of checks of a sale (docs/sales.md#order-of-checks)', () => {
  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['transaction_id missing', { transaction_id: undefined }, 'transaction_id'],
    ['transaction_id a number', { transaction_id: 12 }, 'transaction_id'],
    ['transaction_id empty', { transaction_id: '' }, 'transaction_id'],
    ['transaction_id over 255', { transaction_id: 'x'.repeat(256) }, 'transaction_id'],
    ['amount_cents missing', { amount_cents: undefined }, 'amount_cents'],
    ['amount_cents fractional', { amount_cents: 4999.5 }, 'amount_cents'],
    ['amount_cents a string', { amount_cents: '4999' }, 'amount_cents'],
    ['amount_cents zero', { amount_cents: 0 }, 'amount_cents'],
    ['amount_cents negative', { amount_cents: -1 }, 'amount_cents'],
    ['amount_cents beyond 2^53 - 1', { amount_cents: 2 ** 53 }, 'amount_cents'],
    ['tax_cents negative', { tax_cents: -1 }, 'tax_cents'],
    ['currency not a string', { currency: 840 }, 'currency'],
    ['sale_type unknown', { sale_type: 'refund' }, 'sale_type'],
    ['subscription_interval unknown', { subscription_interval: 'weekly' }, 'subscription_interval'],
    ['is_recurring not boolean', { is_recurring: 'true' }, 'is_recurring'],
    ['subscription_id empty', { subscription_id: '' }, 'subscription_id'],
    ['product_id over 255', { product_id: 'p'.repeat(256) }, 'product_id'],
    ['customer_key not a string', { customer_key: 7 }, 'customer_key'],
    ['click_id empty', { click_id: '' }, 'click_id'],
    ['occurred_at without offset', { occurred_at: '2026-03-01T10:00:00' }, 'occurred_at'],
    ['occurred_at not a date', { occurred_at: 'yesterday' }, 'occurred_at'],
    ['occurred_at 31 days old', { occurred_at: '2026-01-29T12:00:00Z' }, 'occurred_at'],
    ['occurred_at 6 minutes ahead', { occurred_at: '2026-03-01T12:06:00Z' }, 'occurred_at'],
    ['provider unknown', { provider: 'acme-pay' }, 'provider'],
    ['provider upper-case', { provider: 'Stripe' }, 'provider'],
    ['provider_payment_id empty', { provider_payment_id: '' }, 'provider_payment_id'],
    ['provider_payment_id over 255', { provider_payment_id: 'p'.repeat(256) }, 'provider_payment_id'],
    ['livemode not boolean', { livemode: 'false' }, 'livemode'],
    ['additional_data not an object', { additional_data: 'test' }, 'additional_data'],
    ['additional_data.test_mode not boolean', { additional_data: { test_mode: 'yes' } }, 'additional_data.test_mode'],
  ];

  test.each(invalid)('%s: 400 invalid_request naming the field, nothing stored', async (_name, overrides, field) => {
    const { t, program } = await withCustomer();
    const response = await t.post(SALE, sale(overrides), program.apiKey);
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body).toMatchObject({ data: null, error: { status: 400, name: 'ValidationError', code: 'invalid_request' } });
    expect(body.error.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    await nothingStored(t);
  });

  test('occurred_at at the limits (30 days old, 5 minutes ahead) is accepted', async () => {
    const { t, program } = await withCustomer();
    expect((await t.post(SALE, sale({ occurred_at: '2026-01-30T12:00:00Z' }), program.apiKey)).statusCode).toBe(200);
    expect((await t.post(SALE, sale({ transaction_id: 'in_2', occurred_at: '2026-03-01T12:05:00Z' }), program.apiKey)).statusCode).toBe(200);
  });

  test.each([
    ['an array', '[1,2]'],
    ['a string', '"sale"'],
    ['null', 'null'],
    ['broken JSON', '{"transaction_id":'],
  ])('a body that is %s: 400 invalid_request', async (_name, payload) => {
    const { t, program } = await withCustomer();
    const response = await t.app.inject({
      method: 'POST', url: SALE, payload, headers: { 'content-type': 'application/json', authorization: `Bearer ${program.apiKey}` },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_request');
    await nothingStored(t);
  });

  test('a body over 64 KiB: 413 in the platform envelope', async () => {
    const { t, program } = await withCustomer();
    const response = await t.post(SALE, sale({ line_items: 'x'.repeat(70_000) }), program.apiKey);
    expect(response.statusCode).toBe(413);
    expect(response.json().error).toMatchObject({ code: 'payload_too_large', status: 413 });
    await nothingStored(t);
  });

  test.each(['GBP', 'usd$', 'dollars'])('currency %s: 422 unsupported_currency, nothing created, the transaction_id stays free', async (currency) => {
    const { t, program } = await withCustomer();
    const response = await t.post(SALE, sale({ currency }), program.apiKey);
    expect(response.statusCode).toBe(422);
    expect(response.json().error).toMatchObject({ status: 422, name: 'UnprocessableEntityError', code: 'unsupported_currency' });
    await nothingStored(t);
    expect((await t.post(SALE, sale({ currency: 'usd' }), program.apiKey)).json().sale_id).toBe(1);
  });

  test('validation comes before currency, currency before duplicates', async () => {
    const { t, program } = await withCustomer();
    expect((await t.post(SALE, sale({ amount_cents: 0, currency: 'GBP' }), program.apiKey)).statusCode).toBe(400);
    await t.post(SALE, sale(), program.apiKey);
    expect((await t.post(SALE, sale({ currency: 'GBP' }), program.apiKey)).statusCode).toBe(422);
  });

  test('duplicate transaction_id: 409 naming the first sale; no second sale or commission', async () => {
    const { t, program } = await withCustomer();
    await t.post(SALE, sale(), program.apiKey);
    const dup = await t.post(SALE, sale({ amount_cents: 1 }), program.apiKey);
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toEqual({
      data: null,
      error: { status: 409, name: 'ConflictError', message: 'Transaction in_1 was already recorded', details: { sale_id: 1 }, code: 'duplicate_transaction' },
    });
    expect(await t.count('sale_events')).toBe(1);
    expect(await t.count('commissions')).toBe(1);
  });

  test('duplicates come before attribution', async () => {
    const { t, program } = await withCustomer();
    await t.post(SALE, sale(), program.apiKey);
    expect((await t.post(SALE, sale({ customer_key: 'nobody' }), program.apiKey)).statusCode).toBe(409);
  });

  test('resends amid new sales in one batch: each resend 409 naming the original (even unattributable now), the new sales recorded once', async () => {
    const { t, program } = await withCustomer();
    const original = (await t.post(SALE, sale({ transaction_id: 'in_0' }), program.apiKey)).json().sale_id;
    const bodies = [
      sale({ transaction_id: 'in_0', amount_cents: 1 }),
      ...Array.from({ length: 10 }, (_, i) => sale({ transaction_id: `in_${i + 1}` })),
      sale({ transaction_id: 'in_0', customer_key: 'nobody' }),
    ];
    const responses = await Promise.all(bodies.map((body) => t.post(SALE, body, program.apiKey)));
    expect(responses.map((r) => r.statusCode)).toEqual([409, ...Array(10).fill(200), 409]);
    for (const resend of [responses[0], responses[11]]) {
      expect(resend.json().error).toMatchObject({ code: 'duplicate_transaction', details: { sale_id: original } });
    }
    expect(new Set(responses.slice(1, 11).map((r) => r.json().sale_id)).size).toBe(10);
    expect(await t.count('sale_events')).toBe(11);
    expect(await t.count('commissions')).toBe(11);
    expect(await t.count('sale_transactions')).toBe(11);
    expect(await t.count('sale_events', 'amount_cents = 1')).toBe(0);
  });

  test('transaction ids are per program', async () => {
    const { t, program } = await withCustomer();
    const other = await t.program();
    await t.lead(other, 'cust_1');
    expect((await t.post(SALE, sale(), program.apiKey)).json().sale_id).toBe(1);
    expect((await t.post(SALE, sale(), other.apiKey)).json().sale_id).toBe(2);
  });

  test.each([
    ['neither customer_key nor click_id', { customer_key: undefined }],
    ['an unknown customer_key', { customer_key: 'nobody' }],
    ['an unknown click_id', { customer_key: undefined, click_id: 'ck_1_aaaaaaaaaaaaaaaaaaaaaa' }],
  ])('%s: 400 no_attribution, nothing stored', async (_name, overrides) => {
    const { t, program } = await withCustomer();
    const response = await t.post(SALE, sale(overrides), program.apiKey);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ status: 400, name: 'AttributionError', code: 'no_attribution' });
    await nothingStored(t);
  });

  test("a customer of another program: 400 no_attribution (by key and by click)", async () => {
    const { t, clickId } = await withCustomer();
    const other = await t.program();
    expect((await t.post(SALE, sale(), other.apiKey)).json().error.code).toBe('no_attribution');
    expect((await t.post(SALE, sale({ customer_key: undefined, click_id: clickId }), other.apiKey)).json().error.code).toBe('no_attribution');
    await nothingStored(t);
  });

  test('an inactive partner-program record: 400 no_attribution', async () => {
    const { t, program } = await withCustomer();
    await t.store.transaction((sql) => sql.write({ table: 'partner_programs', set: "status = 'inactive'", where: 'true' }));
    expect((await t.post(SALE, sale(), program.apiKey)).json().error.code).toBe('no_attribution');
    await nothingStored(t);
  });

  test('rate limit per API key: 429 rate_limited in the typed envelope with retry_after_seconds and Retry-After', async () => {
    const t = await buildTestApp({ rateLimit: { max: 2, windowSeconds: 60 } });
    const program = await t.program();
    const other = await t.program();
    await t.lead(program, 'cust_1');
    expect((await t.post(SALE, sale({ transaction_id: 'a' }), program.apiKey)).statusCode).toBe(200);
    expect((await t.post(SALE, sale({ transaction_id: 'b' }), program.apiKey)).statusCode).toBe(200);
    const limited = await t.post(SALE, sale({ transaction_id: 'c' }), program.apiKey);
    expect(limited.statusCode).toBe(429);
    const body = limited.json();
    expect(body).toEqual({ error: { code: 'rate_limited', message: expect.any(String), retry_after_seconds: expect.any(Number) } });
    expect(body.error.retry_after_seconds).toBeGreaterThanOrEqual(1);
    expect(body.error.retry_after_seconds).toBeLessThanOrEqual(60);
    expect(limited.headers['retry-after']).toBe(String(body.error.retry_after_seconds));
    expect(await t.count('sale_events')).toBe(2);
    // Another key has its own budget; a bad key is refused before it is counted.
    expect((await t.post(SALE, sale({ transaction_id: 'c', customer_key: 'x' }), other.apiKey)).statusCode).toBe(400);
    expect((await t.post(SALE, sale(), 'pk_live_nope')).statusCode).toBe(401);
  });

  test('a store failure while recording: 500 internal_error, nothing stored; the same request succeeds afterwards', async () => {
    const { t, program } = await withCustomer();
    await t.store.transaction((sql) => sql.run('ALTER TABLE commissions RENAME TO commissions_offline'));
    const failed = await t.post(SALE, sale(), program.apiKey);
    expect(failed.statusCode).toBe(500);
    expect(failed.json()).toEqual({
      data: null,
      error: { status: 500, name: 'InternalServerError', message: expect.any(String), details: null, code: 'internal_error' },
    });
    expect(await t.count('sale_events')).toBe(0);
    expect(await t.count('sale_transactions')).toBe(0);
    await t.store.transaction((sql) => sql.run('ALTER TABLE commissions_offline RENAME TO commissions'));
    expect((await t.post(SALE, sale(), program.apiKey)).json()).toMatchObject({ sale_id: expect.any(Number), commission_id: expect.any(Number) });
    expect(await t.count('sale_events')).toBe(1);
  });
});
