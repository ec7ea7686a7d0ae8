import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, T0, type ProgramFixture, type TestApp } from '../helpers/app.js';
import { signStripePayload } from '../../src/cli/stripe-fixtures.js';
import { fixture, stripeMerchant, webhookServer } from '../helpers/stripe.js';

type Event = { id: string; type: string; livemode: boolean; data: { object: any } };

/** The 2xx body of a processed event. */
function answer(event: Event, outcome: string, reason: string | null, saleId: number | null, redelivery = false) {
  return { received: true, event_id: event.id, type: event.type, outcome, reason, sale_id: saleId, redelivery };
}

function signatureError(message: string, details: unknown = null) {
  return { data: null, error: { status: 400, name: 'SignatureError', message, details, code: 'invalid_signature' } };
}

/** A signature dated outside the tolerance: the answer names both clocks. */
function clockError(direction: 'old' | 'in the future', signedAtSeconds: number, now = T0) {
  const signed = new Date(signedAtSeconds * 1000).toISOString();
  const service = new Date(now).toISOString();
  return signatureError(
    `The signature timestamp is more than 300 s ${direction}: signed at ${signed}, the service clock reads ${service} (sign with the service clock: GET /healthz tells it)`,
    { signed_at: signed, service_now: service, tolerance_seconds: 300 },
  );
}

async function setup(programOptions: Record<string, unknown> = {}) {
  const t = await buildTestApp();
  const program = await t.program(programOptions);
  const server = await webhookServer(t, program);
  return { t, program, ...server };
}

type SaleRow = {
  id: number;
  customer_id: number;
  transaction_id: string;
  amount_cents: number;
  tax_cents: number | null;
  currency: string;
  sale_type: string;
  is_recurring: boolean;
  subscription_id: string | null;
  provider: string | null;
  provider_payment_id: string | null;
  source: string;
  occurred_at: Date | null;
  commission_cents: number | null;
};

function sales(t: TestApp): Promise<SaleRow[]> {
  return t.store.read((sql) =>
    sql.all<SaleRow>(
      `SELECT s.id, s.customer_id, s.transaction_id, s.amount_cents, s.tax_cents, s.currency, s.sale_type, s.is_recurring,
         s.subscription_id, s.provider, s.provider_payment_id, s.source, s.occurred_at, c.amount_cents AS commission_cents
       FROM sale_events s LEFT JOIN commissions c ON c.sale_id = s.id ORDER BY s.id`,
    ),
  );
}

function customerOfSale(t: TestApp, saleId: number): Promise<string | undefined> {
  return t.store
    .read((sql) => sql.one<{ customer_key: string }>('SELECT c.customer_key FROM sale_events s JOIN customers c ON c.id = s.customer_id WHERE s.id = $1', [saleId]))
    .then((row) => row?.customer_key);
}

const CUSTOMER = 'cus_SZpk4x7Qm2LdVh';
const SUBSCRIPTION = 'sub_1RpkSubQm2LdVhA8';

/** A program with lead user_42 (click A) and lead user_77 (e-mail fallback); the fixtures' values. */
async function merchant(programOptions: Record<string, unknown> = {}) {
  const t = await buildTestApp();
  const m = await stripeMerchant(t, programOptions);
  return { t, ...m, ...(await webhookServer(t, m.program)) };
}

describe('POST /api/v1/webhooks/stripe/:programId: every fixture', () => {
  test('each fixture has its outcome; sales, commissions and the report show exactly the paid ones', async () => {
    const { t, program, send, load } = await merchant();
    const expected: Array<[string, string, string | null, number | null, string?]> = [
      ['checkout-one-time', 'recorded', null, 1],
      ['checkout-subscription', 'recorded', null, 2],
      ['invoice-first', 'skipped', 'not_subscription_cycle', null],
      ['checkout-async-pending', 'skipped', 'payment_not_completed', null],
      ['checkout-async-succeeded', 'recorded', null, 3],
      ['checkout-email-fallback', 'recorded', null, 4],
      ['customer-created', 'ignored', 'unhandled_event_type', null],
      ['invoice-renewal', 'recorded', null, 5, '2026-03-29T12:00:00.000Z'],
      ['invoice-renewal-legacy', 'recorded', null, 6],
      ['invoice-paid-renewal', 'recorded', null, 7, '2026-04-28T12:00:00.000Z'],
      ['invoice-zero-amount', 'skipped', 'non_positive_amount', null],
      ['invoice-renewal-no-metadata', 'recorded', null, 8],
    ];
    for (const [name, outcome, reason, saleId, clockAt] of expected) {
      if (clockAt) t.clock.set(clockAt);
      const event = load(name);
      const response = await send(event);
      expect({ name, status: response.status, body: response.body }).toEqual({ name, status: 200, body: answer(event, outcome, reason, saleId) });
    }

    const rows = await sales(t);
    expect(rows.map((r) => [r.transaction_id, r.amount_cents, r.tax_cents, r.currency, r.sale_type, r.is_recurring, r.subscription_id, r.commission_cents])).toEqual([
      ['pi_3RpkOneTimeQm2LdVh1', 5499, 500, 'USD', 'payment', false, null, 1100],
      ['in_1RpkFirstQm2LdVhB3', 2900, 0, 'USD', 'subscription', false, SUBSCRIPTION, 580],
      ['pi_3RpkAsyncSepaQm2LdVh', 9900, 0, 'EUR', 'payment', false, null, 1980],
      ['pi_3RpkEmailQm2LdVhG5', 1999, 0, 'USD', 'payment', false, null, 400],
      ['in_1RpkRenewalQm2LdVhJ7', 3190, 290, 'USD', 'subscription', true, SUBSCRIPTION, 638],
      ['in_1RpkLegacyQm2LdVhK8', 2900, null, 'USD', 'subscription', true, SUBSCRIPTION, 580],
      ['in_1RpkInvoicePaidQm2LdVhL9', 2900, 0, 'USD', 'subscription', true, SUBSCRIPTION, 580],
      ['in_1RpkNoMetadataQm2LdVhN2', 2900, 0, 'USD', 'subscription', true, SUBSCRIPTION, 580],
    ]);
    expect(rows.every((r) => r.source === 'stripe' && r.provider === 'stripe')).toBe(true);
    expect(rows.map((r) => r.provider_payment_id).slice(0, 2)).toEqual(['pi_3RpkOneTimeQm2LdVh1', 'cs_live_a1RpkSubscriptionQm2LdVhD2']);
    // occurred_at is the event's time when the sale endpoint would accept it (not 2 days ahead of the clock).
    expect(rows.map((r) => r.occurred_at?.toISOString() ?? null)).toEqual([
      '2026-03-01T12:00:00.000Z', '2026-03-01T12:01:00.000Z', null, '2026-03-01T12:03:00.000Z',
      '2026-03-29T12:00:00.000Z', '2026-03-29T12:01:00.000Z', '2026-04-28T12:00:00.000Z', '2026-04-28T12:02:00.000Z',
    ]);
    expect(await Promise.all(rows.map((r) => customerOfSale(t, r.id)))).toEqual([
      'user_42', 'user_42', 'user_42', 'user_77', 'user_42', 'user_42', 'user_42', 'user_42',
    ]);
    expect(await t.count('webhook_events', `program_id = ${program.id}`)).toBe(12);
    expect(await t.count('customers', `provider_customer_id = '${CUSTOMER}' AND customer_key = 'user_42'`)).toBe(1);
    expect(await t.count('customers', "status = 'conversion'")).toBe(2);

    const report = await t.app.inject({
      method: 'GET', url: `/api/tracking/performance/${program.id}?period=all`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(report.statusCode).toBe(200);
    expect(report.json().metrics).toMatchObject({ totalSales: 8, totalRevenue: 321.88, totalPartnersCommission: 64.38, totalConversions: 2 });
  });
});

describe('signature verification', () => {
  test.each([
    ['no Stripe-Signature header', { header: null }, 'Missing Stripe-Signature header'],
    ['a header without a v1 signature', { header: 't=1772366400' }, "The Stripe-Signature header does not match the body and this program's webhook secret"],
    ['the wrong secret', { secret: 'whsec_not_this_programs' }, "The Stripe-Signature header does not match the body and this program's webhook secret"],
    ['a timestamp 301 s old', { timestamp: Date.parse(T0) / 1000 - 301 }, clockError('old', Date.parse(T0) / 1000 - 301)],
    ['a timestamp 301 s in the future', { timestamp: Date.parse(T0) / 1000 + 301 }, clockError('in the future', Date.parse(T0) / 1000 + 301)],
    ['a timestamp a year in the future', { timestamp: Date.parse(T0) / 1000 + 365 * 86_400 }, clockError('in the future', Date.parse(T0) / 1000 + 365 * 86_400)],
  ])('%s is 400 invalid_signature, nothing recorded', async (_name, options, expected) => {
    const { t, send, load } = await merchant();
    const response = await send(load('checkout-one-time'), options);
    expect(response).toEqual({ status: 400, body: typeof expected === 'string' ? signatureError(expected) : expected });
    expect(await t.count('webhook_events')).toBe(0);
    expect(await t.count('sale_events')).toBe(0);
  });

  test('a body altered by one byte after signing is 400 invalid_signature', async () => {
    const { t, program, send, load } = await merchant();
    const payload = JSON.stringify(load('checkout-one-time'));
    const header = signStripePayload(payload, program.webhookSecret, Date.parse(T0) / 1000);
    const altered = payload.replace('"amount_total":5499', '"amount_total":5490');
    expect(altered).not.toBe(payload);
    expect(altered.length).toBe(payload.length);
    expect(await send(altered, { header })).toEqual({
      status: 400,
      body: signatureError("The Stripe-Signature header does not match the body and this program's webhook secret"),
    });
    expect(await t.count('webhook_events')).toBe(0);
    expect(await t.count('sale_events')).toBe(0);
  });

  test.each([
    // Stripe's library reads `abc` as NaN, which its age check lets through: signed over "NaN.<body>" it would verify for ever.
    ['t=abc', (payload: string, secret: string) => signStripePayload(payload, secret, Number.NaN).replace('t=NaN,', 't=abc,')],
    ['t=<now>abc', (payload: string, secret: string) => signStripePayload(payload, secret, Date.parse(T0) / 1000).replace(/^t=(\d+),/, 't=$1abc,')],
  ])('a timestamp that is not a decimal integer (%s) is 400 invalid_signature, nothing recorded', async (_name, sign) => {
    const { t, program, send, load } = await merchant();
    const payload = JSON.stringify(load('checkout-one-time'));
    expect(await send(payload, { header: sign(payload, program.webhookSecret) })).toEqual({
      status: 400,
      body: signatureError('The Stripe-Signature timestamp t must be a decimal integer (Unix seconds)'),
    });
    expect(await t.count('webhook_events')).toBe(0);
    expect(await t.count('sale_events')).toBe(0);
  });

  test('the raw bytes are verified: whitespace and key order as sent, and exactly 300 s old is still accepted', async () => {
    const { send, load } = await merchant();
    const event = load('checkout-one-time');
    const compact = JSON.stringify(event);
    const response = await send(`  ${compact}\n`, { timestamp: Date.parse(T0) / 1000 - 300 });
    expect(response).toEqual({ status: 200, body: answer(event, 'recorded', null, 1) });
  });

  test('exactly 300 s in the future is accepted; the timestamp checked is the one the signature covers (the last t=, as Stripe reads it)', async () => {
    const { program, send, load } = await merchant();
    const event = load('checkout-one-time');
    const payload = JSON.stringify(event);
    const future = Date.parse(T0) / 1000 + 301;
    // Signed 301 s ahead; an earlier t= in the header must not hide that.
    const header = `t=${Date.parse(T0) / 1000},${signStripePayload(payload, program.webhookSecret, future)}`;
    expect(await send(payload, { header })).toEqual({ status: 400, body: clockError('in the future', future) });
    expect(await send(payload, { timestamp: Date.parse(T0) / 1000 + 300 })).toEqual({ status: 200, body: answer(event, 'recorded', null, 1) });
  });

  test('the tolerance is measured against the service clock, not the machine time', async () => {
    const { t, send } = await setup();
    t.clock.set('2030-01-01T00:00:00.000Z');
    const event = fixture<Event>('customer-created');
    expect((await send(event, { timestamp: Date.parse('2029-12-31T23:56:00.000Z') / 1000 })).body).toEqual(answer(event, 'ignored', 'unhandled_event_type', null));
    expect((await send({ ...event, id: 'evt_2' }, { timestamp: Date.parse(T0) / 1000 })).body).toEqual(clockError('old', Date.parse(T0) / 1000, '2030-01-01T00:00:00.000Z'));
  });

  test("another program's secret does not verify; an unknown program is 404; a malformed id is 400", async () => {
    const { t, send } = await setup();
    const other = await t.program();
    const event = fixture('customer-created');
    expect((await send(event, { secret: other.webhookSecret })).status).toBe(400);
    expect(await send(event, { programId: 999 })).toEqual({
      status: 404,
      body: { data: null, error: { status: 404, name: 'NotFoundError', message: 'Program 999 not found', details: null, code: 'not_found' } },
    });
    const malformed = await send(event, { programId: 'abc' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('invalid_request');
    expect(await t.count('webhook_events')).toBe(0);
  });

  test('a signed body that is not an event is 400 invalid_request; over 1 MiB is 413', async () => {
    const { t, send } = await setup();
    const notJson = await send('{"id": "evt_1",');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toMatchObject({ code: 'invalid_request', details: { fields: [{ field: 'body', message: 'Body is not valid JSON' }] } });
    const notEvent = await send({ id: 'evt_1', object: 'event' });
    expect(notEvent.status).toBe(400);
    expect(notEvent.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual(['type', 'data']);
    const huge = fixture('customer-created');
    huge.data.object.metadata = { padding: 'x'.repeat(1024 * 1024) };
    const tooLarge = await send(huge);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.code).toBe('payload_too_large');
    expect(await t.count('webhook_events')).toBe(0);
  });

  test('a large event under 1 MiB is accepted (the tracking API limit of 64 KiB does not apply)', async () => {
    const { send } = await setup();
    const event = fixture<Event>('customer-created');
    event.data.object.metadata = { padding: 'x'.repeat(200 * 1024) };
    expect(await send(event)).toEqual({ status: 200, body: answer(event, 'ignored', 'unhandled_event_type', null) });
  });
});

describe('exactly once', () => {
  test('a redelivery answers the stored outcome with 200 and changes nothing', async () => {
    const { t, send, load } = await merchant();
    const event = load('checkout-one-time');
    expect((await send(event)).body).toEqual(answer(event, 'recorded', null, 1));
    t.clock.set('2026-03-01T13:00:00.000Z');
    expect(await send(event)).toEqual({ status: 200, body: answer(event, 'recorded', null, 1, true) });
    const skipped = load('invoice-zero-amount');
    expect((await send(skipped)).body).toEqual(answer(skipped, 'skipped', 'non_positive_amount', null));
    expect((await send(skipped)).body).toEqual(answer(skipped, 'skipped', 'non_positive_amount', null, true));
    expect(await t.count('sale_events')).toBe(1);
    expect(await t.count('commissions')).toBe(1);
    expect(await t.count('webhook_events')).toBe(2);
    const stored = await t.store.read((sql) => sql.one<{ received_at: Date }>('SELECT received_at FROM webhook_events WHERE event_id = $1', [event.id]));
    expect(stored!.received_at.toISOString()).toBe('2026-03-01T12:00:00.000Z');
  });

  test('concurrent deliveries of one event: one stored event, one sale', async () => {
    const { t, send, load } = await merchant();
    const event = load('checkout-one-time');
    const responses = await Promise.all(Array.from({ length: 8 }, () => send(event)));
    expect(responses.every((r) => r.status === 200 && r.body.outcome === 'recorded' && r.body.sale_id === 1)).toBe(true);
    expect(responses.filter((r) => !r.body.redelivery)).toHaveLength(1);
    expect(await t.count('sale_events')).toBe(1);
    expect(await t.count('webhook_events')).toBe(1);
  });

  test('checkout and the first invoice of the subscription count once, in either order', async () => {
    for (const order of [['invoice-first', 'checkout-subscription'], ['checkout-subscription', 'invoice-first']]) {
      const { t, send, load } = await merchant();
      for (const name of order) await send(load(name));
      expect((await sales(t)).map((r) => [r.transaction_id, r.amount_cents])).toEqual([['in_1RpkFirstQm2LdVhB3', 2900]]);
    }
  });

  test('invoice.paid and invoice.payment_succeeded of one invoice: the second is already_recorded with the same sale', async () => {
    const { t, send, load } = await merchant();
    t.clock.set('2026-03-29T12:00:00.000Z');
    const succeeded = load('invoice-renewal');
    const paid = { ...succeeded, id: 'evt_1RpkRenewalPaidTwin', type: 'invoice.paid' };
    expect((await send(succeeded)).body).toEqual(answer(succeeded, 'recorded', null, 1));
    expect((await send(paid)).body).toEqual(answer(paid, 'recorded', 'already_recorded', 1));
    expect(await t.count('sale_events')).toBe(1);
    expect(await t.count('commissions')).toBe(1);
  });

  test('out of order: the async success before the pending checkout, renewals before the first payment', async () => {
    const { t, send, load } = await merchant();
    const succeeded = load('checkout-async-succeeded');
    const pending = load('checkout-async-pending');
    expect((await send(succeeded)).body).toEqual(answer(succeeded, 'recorded', null, 1));
    expect((await send(pending)).body).toEqual(answer(pending, 'skipped', 'payment_not_completed', null));
    const renewal = load('invoice-renewal');
    expect((await send(renewal)).body).toEqual(answer(renewal, 'recorded', null, 2));
    const checkout = load('checkout-subscription');
    expect((await send(checkout)).body).toEqual(answer(checkout, 'recorded', null, 3));
    expect((await sales(t)).map((r) => r.transaction_id)).toEqual(['pi_3RpkAsyncSepaQm2LdVh', 'in_1RpkRenewalQm2LdVhJ7', 'in_1RpkFirstQm2LdVhB3']);
  });

  test('replaying a payment under a new event id records no second sale', async () => {
    const { t, send, load } = await merchant();
    const event = load('checkout-one-time');
    await send(event);
    const again = { ...event, id: 'evt_replayed' };
    expect((await send(again)).body).toEqual(answer(again, 'recorded', 'already_recorded', 1));
    expect(await t.count('sale_events')).toBe(1);
    expect(await t.count('webhook_events')).toBe(2);
  });
});

/** A checkout session event with only the given identifiers. */
function session(program: ProgramFixture, id: string, ids: { click?: string; email?: string; customer?: string; key?: string }): Event {
  const event = fixture<Event>('checkout-one-time', { CLICK_ID: '', CUSTOMER_KEY: '', PROGRAM_ID: String(program.id) });
  const object = event.data.object;
  event.id = `evt_${id}`;
  object.id = `cs_${id}`;
  object.payment_intent = `pi_${id}`;
  object.metadata = { program_id: String(program.id), ...(ids.click ? { partner_click_id: ids.click } : {}), ...(ids.key ? { partner_customer_key: ids.key } : {}) };
  object.customer_details.email = ids.email ?? null;
  object.customer = ids.customer ?? null;
  return event;
}

describe('attribution fallback order (docs/webhooks.md#attribution-fallback-order)', () => {
  test('click id, then e-mail against the lead, then the provider customer of an earlier attributed session, then the customer key', async () => {
    const { t, program, send } = await setup();
    const a = await t.lead(program, 'cust_a', { email: 'a@example.com' });
    await t.lead(program, 'cust_b', { email: 'b@example.com' });
    await t.lead(program, 'cust_c', { email: 'c@example.com' });
    await t.lead(program, 'cust_d', { email: 'd@example.com' });

    const steps: Array<[string, Parameters<typeof session>[2], string]> = [
      ['click', { click: a.clickId, email: 'b@example.com', customer: 'cus_A', key: 'cust_c' }, 'cust_a'],
      ['email', { email: 'B@Example.COM', customer: 'cus_B', key: 'cust_c' }, 'cust_b'],
      // Links cus_D to cust_d: attributed by its key, the only identifier that matches.
      ['link', { email: 'nobody@example.com', customer: 'cus_D', key: 'cust_d' }, 'cust_d'],
      ['provider', { email: 'nobody@example.com', customer: 'cus_D', key: 'cust_c' }, 'cust_d'],
      ['key', { email: 'nobody@example.com', customer: 'cus_C', key: 'cust_c' }, 'cust_c'],
    ];
    let saleId = 0;
    for (const [id, ids, customerKey] of steps) {
      const event = session(program, id, ids);
      expect((await send(event)).body).toEqual(answer(event, 'recorded', null, ++saleId));
      expect({ id, customer: await customerOfSale(t, saleId) }).toEqual({ id, customer: customerKey });
    }
    const none = session(program, 'none', { click: 'ck_404_unknownunknownunknown', email: 'nobody@example.com', customer: 'cus_unknown', key: 'cust_z' });
    expect(await send(none)).toEqual({ status: 200, body: answer(none, 'skipped', 'no_attribution', null) });
    expect(await t.count('sale_events')).toBe(5);
    const stored = await t.store.read((sql) => sql.one('SELECT outcome, reason, sale_id FROM webhook_events WHERE event_id = $1', [none.id]));
    expect(stored).toEqual({ outcome: 'skipped', reason: 'no_attribution', sale_id: null });
  });

  test('a click of another program does not attribute', async () => {
    const { t, program, send } = await setup();
    const other = await t.program();
    const foreign = await t.lead(other, 'cust_other');
    const event = session(program, 'foreign', { click: foreign.clickId });
    expect((await send(event)).body).toEqual(answer(event, 'skipped', 'no_attribution', null));
  });

  test('a renewal without metadata: by the provider customer id, else by the subscription of an earlier sale', async () => {
    const { t, send, load } = await merchant();
    await send(load('checkout-subscription'));
    t.clock.set('2026-04-28T12:00:00.000Z');
    const byCustomer = load('invoice-renewal-no-metadata');
    expect((await send(byCustomer)).body).toEqual(answer(byCustomer, 'recorded', null, 2));

    const bySubscription = load('invoice-renewal-no-metadata');
    bySubscription.id = 'evt_by_subscription';
    bySubscription.data.object.id = 'in_by_subscription';
    bySubscription.data.object.customer = 'cus_recreated';
    bySubscription.data.object.customer_email = 'unknown@example.com';
    expect((await send(bySubscription)).body).toEqual(answer(bySubscription, 'recorded', null, 3));
    expect(await customerOfSale(t, 3)).toBe('user_42');

    const orphan = load('invoice-renewal-no-metadata');
    orphan.id = 'evt_orphan';
    orphan.data.object.id = 'in_orphan';
    orphan.data.object.customer = 'cus_recreated';
    orphan.data.object.customer_email = null;
    orphan.data.object.parent.subscription_details.subscription = 'sub_unknown';
    expect((await send(orphan)).body).toEqual(answer(orphan, 'skipped', 'no_attribution', null));
  });

  test('new-style subscription metadata wins over the legacy location', async () => {
    const { t, program, send, load } = await merchant();
    await t.lead(program, 'user_legacy');
    t.clock.set('2026-03-29T12:00:00.000Z');
    const event = load('invoice-renewal');
    event.data.object.parent.subscription_details.metadata = { partner_customer_key: 'user_42' };
    event.data.object.subscription_details = { metadata: { partner_customer_key: 'user_legacy' } };
    event.data.object.customer = null;
    event.data.object.customer_email = null;
    expect((await send(event)).body).toEqual(answer(event, 'recorded', null, 1));
    expect(await customerOfSale(t, 1)).toBe('user_42');
  });
});

describe('deferred attribution', () => {
  test('a renewal without metadata before its checkout is recorded once the checkout attributes the subscription; webhook events shows it', async () => {
    const { t, program, send, load } = await merchant();
    t.clock.set('2026-04-28T12:05:00.000Z');
    const renewal = load('invoice-renewal-no-metadata');
    expect(await send(renewal)).toEqual({ status: 200, body: answer(renewal, 'skipped', 'no_attribution', null) });
    expect(await t.count('sale_events')).toBe(0);

    const checkout = load('checkout-subscription');
    expect((await send(checkout)).body).toEqual(answer(checkout, 'recorded', null, 1));
    expect((await sales(t)).map((r) => [r.id, r.transaction_id, r.is_recurring, r.commission_cents])).toEqual([
      [1, 'in_1RpkFirstQm2LdVhB3', false, 580],
      [2, 'in_1RpkNoMetadataQm2LdVhN2', true, 580],
    ]);
    expect(await customerOfSale(t, 2)).toBe('user_42');
    const events = await t.admin('GET', `/programs/${program.id}/webhook-events`);
    expect(events.find((e: { eventId: string }) => e.eventId === renewal.id)).toEqual({
      eventId: renewal.id, type: 'invoice.payment_succeeded', outcome: 'recorded', reason: null, saleId: 2, receivedAt: '2026-04-28T12:05:00.000Z',
    });
    // A redelivery answers the new stored outcome; nothing is recorded twice.
    expect((await send(renewal)).body).toEqual(answer(renewal, 'recorded', null, 2, true));
    expect((await send(checkout)).body).toEqual(answer(checkout, 'recorded', null, 1, true));
    expect(await t.count('sale_events')).toBe(2);
    expect(await t.count('commissions')).toBe(2);
    const report = await t.app.inject({ method: 'GET', url: `/api/tracking/performance/${program.id}?period=all`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(report.json().metrics).toMatchObject({ totalSales: 2, totalRevenue: 58 });
  });

  test('a renewal attributable only by its subscription is recorded after another renewal of it; an unrelated one stays skipped', async () => {
    const { t, send, load } = await merchant();
    t.clock.set('2026-04-28T12:05:00.000Z');
    const bySubscription = load('invoice-renewal-no-metadata');
    bySubscription.data.object.customer = 'cus_recreated';
    const orphan = load('invoice-renewal-no-metadata');
    orphan.id = 'evt_orphan';
    orphan.data.object.id = 'in_orphan';
    orphan.data.object.customer = 'cus_other';
    orphan.data.object.parent.subscription_details.subscription = 'sub_unknown';
    expect((await send(bySubscription)).body).toEqual(answer(bySubscription, 'skipped', 'no_attribution', null));
    expect((await send(orphan)).body).toEqual(answer(orphan, 'skipped', 'no_attribution', null));
    // The renewal with metadata records the subscription's first sale, which attributes the other one.
    const renewal = load('invoice-renewal');
    expect((await send(renewal)).body).toEqual(answer(renewal, 'recorded', null, 1));
    expect((await send(bySubscription)).body).toEqual(answer(bySubscription, 'recorded', null, 2, true));
    expect((await send(orphan)).body).toEqual(answer(orphan, 'skipped', 'no_attribution', null, true));
    expect(await customerOfSale(t, 2)).toBe('user_42');
  });

  test('the renewal and its checkout delivered concurrently: both recorded, once, in every round', async () => {
    for (let round = 0; round < 4; round++) {
      const { t, send, load } = await merchant();
      t.clock.set('2026-04-28T12:05:00.000Z');
      const [renewal, checkout] = [load('invoice-renewal-no-metadata'), load('checkout-subscription')];
      const pair = round % 2 === 0 ? [renewal, checkout, renewal] : [checkout, renewal, checkout];
      const answers = await Promise.all(pair.map((event) => send(event)));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
      expect((await sales(t)).map((r) => r.transaction_id).sort()).toEqual(['in_1RpkFirstQm2LdVhB3', 'in_1RpkNoMetadataQm2LdVhN2']);
      expect((await send(renewal)).body).toMatchObject({ outcome: 'recorded', reason: null, sale_id: expect.any(Number), redelivery: true });
    }
  });
});

describe('malformed signed events', () => {
  test.each([
    ['created out of the Date range', (e: Event & { created?: unknown }) => (e.created = 1e20)],
    ['created not a number', (e: Event & { created?: unknown }) => (e.created = '1772366400')],
    ['livemode not a boolean', (e: Event) => ((e as { livemode: unknown }).livemode = 'yes')],
    ['currency not a string', (e: Event) => (e.data.object.currency = 840)],
    ['amount_total not a number', (e: Event) => (e.data.object.amount_total = '5499')],
    ['metadata not an object of strings', (e: Event) => (e.data.object.metadata = { partner_customer_key: 42 })],
    ['customer_details.email not a string', (e: Event) => (e.data.object.customer_details = { email: ['a@b.c'] })],
    ['customer an object with a non-string id', (e: Event) => (e.data.object.customer = { id: { nested: true } })],
  ])('%s: 200 skipped malformed_event, stored, nothing recorded', async (_name, alter) => {
    const { t, send, load } = await merchant();
    const event = load('checkout-one-time');
    alter(event);
    expect(await send(event)).toEqual({ status: 200, body: answer(event, 'skipped', 'malformed_event', null) });
    expect((await send(event)).body).toEqual(answer(event, 'skipped', 'malformed_event', null, true));
    expect(await t.count('webhook_events')).toBe(1);
    expect(await t.count('sale_events')).toBe(0);
    expect(await t.count('sale_transactions')).toBe(0);
  });

  test('an invoice with a null tax entry or a non-string subscription is malformed_event; an unhandled type with odd fields is ignored', async () => {
    const { t, send, load } = await merchant();
    t.clock.set('2026-03-29T12:00:00.000Z');
    const taxes = load('invoice-renewal');
    taxes.data.object.total_taxes = [null];
    expect((await send(taxes)).body).toEqual(answer(taxes, 'skipped', 'malformed_event', null));
    const subscription = { ...load('invoice-renewal'), id: 'evt_sub_number' };
    subscription.data.object.parent.subscription_details.subscription = 12;
    expect((await send(subscription)).body).toEqual(answer(subscription, 'skipped', 'malformed_event', null));
    const other = { ...fixture<Event>('customer-created'), created: 1e20 };
    expect((await send(other)).body).toEqual(answer(other, 'ignored', 'unhandled_event_type', null));
    expect(await t.count('sale_events')).toBe(0);
  });
});

describe('skips and special cases', () => {
  test('metadata program_id of another program is skipped', async () => {
    const { t, send, values } = await merchant();
    const event = fixture<Event>('checkout-one-time', { ...values, PROGRAM_ID: '999' });
    expect(await send(event)).toEqual({ status: 200, body: answer(event, 'skipped', 'program_mismatch', null) });
    t.clock.set('2026-03-29T12:00:00.000Z');
    const renewal = fixture<Event>('invoice-renewal', { ...values, PROGRAM_ID: '999' });
    expect((await send(renewal)).body).toEqual(answer(renewal, 'skipped', 'program_mismatch', null));
    expect(await t.count('sale_events')).toBe(0);
  });

  test('an unsupported currency is skipped, nothing recorded', async () => {
    const { t, send, load } = await merchant();
    const event = load('checkout-one-time');
    event.data.object.currency = 'gbp';
    expect((await send(event)).body).toEqual(answer(event, 'skipped', 'unsupported_currency', null));
    expect(await t.count('sale_events')).toBe(0);
    expect(await t.count('sale_transactions')).toBe(0);
  });

  test('after the attribution window: skipped, and the transaction is remembered', async () => {
    const { t, send, load } = await merchant({ attributionWindowDays: 1 });
    t.clock.advanceDays(2);
    const event = load('checkout-one-time');
    expect((await send(event)).body).toEqual(answer(event, 'skipped', 'attribution_window_expired', null));
    const again = { ...event, id: 'evt_again' };
    expect((await send(again)).body).toEqual(answer(again, 'skipped', 'attribution_window_expired', null));
    expect(await t.count('sale_events')).toBe(0);
    expect(await t.count('sale_transactions')).toBe(1);
  });

  test('a test-mode event (livemode false) records a test sale: no live sale, no commission', async () => {
    const { t, send, load } = await merchant();
    const event = load('checkout-one-time');
    event.livemode = false;
    expect((await send(event)).body).toEqual(answer(event, 'recorded', 'test_mode', null));
    expect(await t.count('test_sale_events')).toBe(1);
    expect(await t.count('sale_events')).toBe(0);
    expect(await t.count('commissions')).toBe(0);
  });

  test('a recurring duration of 0 months: the renewal is recorded without commission', async () => {
    const { t, send, load } = await merchant({ recurringMonths: 0 });
    await send(load('checkout-subscription'));
    t.clock.set('2026-03-29T12:00:00.000Z');
    await send(load('invoice-renewal'));
    expect((await sales(t)).map((r) => [r.transaction_id, r.commission_cents])).toEqual([
      ['in_1RpkFirstQm2LdVhB3', 580],
      ['in_1RpkRenewalQm2LdVhJ7', null],
    ]);
  });
});

describe('GET /api/admin/programs/:programId/webhook-events', () => {
  test('lists received events newest first with their outcome; --limit; 404', async () => {
    const { t, program, send, load } = await merchant();
    await send(load('checkout-one-time'));
    t.clock.set('2026-03-01T12:05:00.000Z');
    await send(load('customer-created'));
    expect(await t.admin('GET', `/programs/${program.id}/webhook-events`)).toEqual([
      { eventId: 'evt_1RpkCustomerQm2LdVhP3', type: 'customer.created', outcome: 'ignored', reason: 'unhandled_event_type', saleId: null, receivedAt: '2026-03-01T12:05:00.000Z' },
      { eventId: 'evt_1RpkOneTimeQm2LdVhC1', type: 'checkout.session.completed', outcome: 'recorded', reason: null, saleId: 1, receivedAt: '2026-03-01T12:00:00.000Z' },
    ]);
    expect(await t.admin('GET', `/programs/${program.id}/webhook-events?limit=1`)).toHaveLength(1);
    const missing = await t.app.inject({ method: 'GET', url: '/api/admin/programs/99/webhook-events', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(missing.statusCode).toBe(404);
    const badLimit = await t.app.inject({ method: 'GET', url: `/api/admin/programs/${program.id}/webhook-events?limit=0`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(badLimit.statusCode).toBe(400);
  });
});

describe('POST /api/admin/programs/:programId/webhook-secret', () => {
  test("the secret Stripe shows for the endpoint replaces the program's; events signed with the old one are refused", async () => {
    const { t, program, send } = await setup();
    const stripeSecret = 'whsec_0123456789abcdefABCDEF0123456789';
    expect(await t.admin('POST', `/programs/${program.id}/webhook-secret`, { secret: stripeSecret })).toEqual({ programId: program.id, webhookSecret: stripeSecret });
    const event = fixture<Event>('customer-created');
    expect((await send(event)).status).toBe(400);
    expect(await send(event, { secret: stripeSecret })).toEqual({ status: 200, body: answer(event, 'ignored', 'unhandled_event_type', null) });
    expect((await t.admin('GET', `/programs/${program.id}`)).webhookSecret).toBe(stripeSecret);
    const bad = await t.app.inject({
      method: 'POST', url: `/api/admin/programs/${program.id}/webhook-secret`, payload: { secret: 'sk_live_nope' }, headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details.fields).toEqual([{ field: 'secret', message: 'a Stripe signing secret, whsec_…' }]);
    const missing = await t.app.inject({
      method: 'POST', url: '/api/admin/programs/99/webhook-secret', payload: { secret: stripeSecret }, headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(missing.statusCode).toBe(404);
  });
});
