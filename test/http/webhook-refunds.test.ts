import { describe, expect, test } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { sendWebhook, stripeMerchant, webhookServer } from '../helpers/stripe.js';

type Event = { id: string; type: string; livemode: boolean; data: { object: any } };

function answer(event: Event, outcome: string, reason: string | null, saleId: number | null, redelivery = false) {
  return { status: 200, body: { received: true, event_id: event.id, type: event.type, outcome, reason, sale_id: saleId, redelivery } };
}

async function merchant() {
  const t = await buildTestApp();
  const m = await stripeMerchant(t);
  const send = (event: object) => sendWebhook(t, m.program, event);
  /** The fixture as another delivery: a new event id, the charge's refunded total changed when given. */
  const variant = (name: string, eventId: string, change: (object: any) => void = () => {}) => {
    const event = m.load<Event>(name);
    event.id = eventId;
    change(event.data.object);
    return event;
  };
  return { t, ...m, send, variant };
}

function refunds(t: TestApp) {
  return t.store.read((sql) =>
    sql.all<{ id: number; refund_id: string; mode: string; sale_id: number; amount_cents: number; currency: string; source: string; completes_sale: boolean }>(
      'SELECT id, refund_id, mode, sale_id, amount_cents, currency, source, completes_sale FROM refunds ORDER BY id',
    ),
  );
}

function commissions(t: TestApp) {
  return t.store.read((sql) => sql.all<{ sale_id: number; amount_cents: number; status: string; type: string }>(
    'SELECT sale_id, amount_cents, status, type FROM commissions ORDER BY id',
  ));
}

function storedEvent(t: TestApp, eventId: string) {
  return t.store.read((sql) => sql.one('SELECT outcome, reason, sale_id, payment_intent_id, invoice_id, charge_id, payload IS NOT NULL AS kept FROM webhook_events WHERE event_id = $1', [eventId]));
}

describe('charge.refunded: full, partial and cumulative refunds', () => {
  test('a full refund of a checkout payment (found by its payment intent) reverses the commission', async () => {
    const { t, send, load } = await merchant();
    await send(load('checkout-one-time'));
    const event = load<Event>('refund-full');
    expect(await send(event)).toEqual(answer(event, 'recorded', 'refund_recorded', 1));
    expect(await refunds(t)).toEqual([
      { id: 1, refund_id: 'ch_3RpkOneTimeQm2LdVh1:5499', mode: 'live', sale_id: 1, amount_cents: 5499, currency: 'USD', source: 'stripe', completes_sale: true },
    ]);
    expect(await commissions(t)).toEqual([{ sale_id: 1, amount_cents: 1100, status: 'reversed', type: 'sale' }]);
    // A redelivery answers the stored row and changes nothing.
    expect(await send(event)).toEqual(answer(event, 'recorded', 'refund_recorded', 1, true));
    expect(await t.count('refunds')).toBe(1);
  });

  test('cumulative partials: each event records the difference from what was refunded; the same total again, an older total and the final full refund', async () => {
    const { t, send, load, variant } = await merchant();
    expect((await send(load('checkout-async-succeeded'))).body.sale_id).toBe(1); // 99.00 EUR, commission 19.80
    const first = load<Event>('refund-partial'); // 25.00 refunded
    expect(await send(first)).toEqual(answer(first, 'recorded', 'refund_recorded', 1));
    expect((await commissions(t))[0]).toMatchObject({ amount_cents: 1480, status: 'pending' }); // 20 % of 74.00

    const second = variant('refund-partial', 'evt_refund_40', (c) => (c.amount_refunded = 4000));
    expect(await send(second)).toEqual(answer(second, 'recorded', 'refund_recorded', 1));
    expect((await commissions(t))[0].amount_cents).toBe(1180); // 20 % of 59.00

    // The same total under another event id, and an older total arriving late: nothing new.
    const again = variant('refund-partial', 'evt_refund_40_again', (c) => (c.amount_refunded = 4000));
    expect(await send(again)).toEqual(answer(again, 'recorded', 'already_refunded', 1));
    const late = variant('refund-partial', 'evt_refund_30_late', (c) => (c.amount_refunded = 3000));
    expect(await send(late)).toEqual(answer(late, 'recorded', 'already_refunded', 1));

    const full = variant('refund-partial', 'evt_refund_full', (c) => Object.assign(c, { amount_refunded: 9900, refunded: true }));
    expect(await send(full)).toEqual(answer(full, 'recorded', 'refund_recorded', 1));
    expect((await refunds(t)).map((r) => [r.refund_id, r.amount_cents, r.currency, r.completes_sale])).toEqual([
      ['ch_3RpkAsyncSepaQm2LdVh:2500', 2500, 'EUR', false],
      ['ch_3RpkAsyncSepaQm2LdVh:4000', 1500, 'EUR', false],
      ['ch_3RpkAsyncSepaQm2LdVh:9900', 5900, 'EUR', true],
    ]);
    expect(await commissions(t)).toEqual([{ sale_id: 1, amount_cents: 1180, status: 'reversed', type: 'sale' }]);
  });

  test('refunds of the API and of Stripe share one namespace and one refunded total', async () => {
    const { t, program, send, load, variant } = await merchant();
    await send(load('checkout-one-time'));
    const byApi = await t.post('/api/v1/track/refund', { transaction_id: 'pi_3RpkOneTimeQm2LdVh1', refund_id: 'ch_3RpkOneTimeQm2LdVh1:1000', amount_cents: 1000 }, program.apiKey);
    expect(byApi.json()).toMatchObject({ refund_id: 1, refunded_cents: 1000, remaining_cents: 4499 });
    const partial = variant('refund-full', 'evt_partial_1000', (c) => Object.assign(c, { amount_refunded: 1000, refunded: false }));
    expect(await send(partial)).toEqual(answer(partial, 'recorded', 'already_refunded', 1));
    // Stripe's total 20.00 − the 10.00 already recorded by the API = 10.00 more.
    const more = variant('refund-full', 'evt_partial_2000', (c) => Object.assign(c, { amount_refunded: 2000, refunded: false }));
    expect(await send(more)).toEqual(answer(more, 'recorded', 'refund_recorded', 1));
    expect((await refunds(t)).map((r) => [r.refund_id, r.amount_cents, r.source])).toEqual([
      ['ch_3RpkOneTimeQm2LdVh1:1000', 1000, 'api'],
      ['ch_3RpkOneTimeQm2LdVh1:2000', 1000, 'stripe'],
    ]);
  });

  test('a charge refunded beyond its sale (a sale recorded through the API for less) is skipped unless the charge is fully refunded', async () => {
    const { t, program, send, variant } = await merchant();
    await t.sale(program, { transaction_id: 'pi_3RpkOneTimeQm2LdVh1', amount_cents: 4000, customer_key: 'user_42' });
    const partial = variant('refund-full', 'evt_over', (c) => Object.assign(c, { amount_refunded: 4500, refunded: false }));
    expect(await send(partial)).toEqual(answer(partial, 'skipped', 'refund_exceeds_sale', null));
    const full = variant('refund-full', 'evt_full');
    expect(await send(full)).toEqual(answer(full, 'recorded', 'refund_recorded', 1));
    expect((await refunds(t)).map((r) => r.amount_cents)).toEqual([4000]);
  });

  test('20 concurrent deliveries of one refund under different event ids record it once', async () => {
    const t = await buildTestApp();
    const m = await stripeMerchant(t);
    const { send } = await webhookServer(t, m.program);
    await send(m.load('checkout-one-time'));
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const event = m.load<Event>('refund-full');
        event.id = `evt_storm_${i}`;
        return send(event);
      }),
    );
    expect(answers.every((a) => a.status === 200 && a.body.sale_id === 1)).toBe(true);
    expect(answers.map((a) => a.body.reason).sort()).toEqual([...Array(19).fill('already_refunded'), 'refund_recorded']);
    expect(await t.count('refunds')).toBe(1);
    expect(await t.count('webhook_events')).toBe(21);
  });
});

describe('charge.refunded: finding the sale of a charge', () => {
  test('legacy shape: the invoice named on the charge (or the payment intent and charge its invoice event carried)', async () => {
    const { t, send, load, variant } = await merchant();
    await send(load('checkout-subscription'));
    expect((await send(load('invoice-renewal-legacy'))).body.sale_id).toBe(2);
    expect(await t.store.read((sql) => sql.one('SELECT payment_intent_id, charge_id FROM sale_events WHERE id = 2'))).toEqual({
      payment_intent_id: 'pi_3RpkLegacyQm2LdVh1', charge_id: 'ch_3RpkLegacyQm2LdVh1',
    });
    const event = load<Event>('refund-invoice-legacy');
    expect(await send(event)).toEqual(answer(event, 'recorded', 'refund_recorded', 2));
    // A charge naming neither a known payment intent nor a known charge: its invoice finds the sale, and the
    // refund is what its total adds to the sale's refunded 10.00.
    const byInvoice = variant('refund-invoice-legacy', 'evt_by_invoice', (c) => Object.assign(c, { id: 'ch_other', payment_intent: null, amount_refunded: 1500 }));
    expect(await send(byInvoice)).toEqual(answer(byInvoice, 'recorded', 'refund_recorded', 2));
    expect((await refunds(t)).map((r) => [r.refund_id, r.sale_id, r.amount_cents])).toEqual([
      ['ch_3RpkLegacyQm2LdVh1:1000', 2, 1000],
      ['ch_other:1500', 2, 500],
    ]);
    expect((await commissions(t))[1]).toMatchObject({ sale_id: 2, amount_cents: 280 }); // 20 % of 14.00
  });

  test('the payment intent comes first: a charge whose intent is one sale and whose invoice another refunds the intent\'s', async () => {
    const { t, program, send, variant } = await merchant();
    await t.sale(program, { transaction_id: 'in_1RpkLegacyQm2LdVhK8', customer_key: 'user_42' });
    await t.sale(program, { transaction_id: 'api_2', provider_payment_id: 'pi_3RpkLegacyQm2LdVh1', customer_key: 'user_42' });
    const event = variant('refund-invoice-legacy', 'evt_both');
    expect(await send(event)).toEqual(answer(event, 'recorded', 'refund_recorded', 2));
  });

  test('a sale recorded through the API with the charge id as its transaction id is found by the charge', async () => {
    const { t, program, send, variant } = await merchant();
    await t.sale(program, { transaction_id: 'ch_3RpkOneTimeQm2LdVh1', amount_cents: 5499, customer_key: 'user_42' });
    const event = variant('refund-full', 'evt_by_charge', (c) => (c.payment_intent = null));
    expect(await send(event)).toEqual(answer(event, 'recorded', 'refund_recorded', 1));
  });

  test('API 2025-03-31.basil: the charge names no invoice; invoice_payment.paid links it, before or after the refund', async () => {
    const { t, send, load } = await merchant();
    await send(load('checkout-subscription'));
    const renewal = load<Event>('invoice-renewal');
    expect((await send(renewal)).body.sale_id).toBe(2);
    const refund = load<Event>('refund-invoice-basil');
    expect(await send(refund)).toEqual(answer(refund, 'skipped', 'sale_not_found', null));
    expect(await storedEvent(t, refund.id)).toEqual({
      outcome: 'skipped', reason: 'sale_not_found', sale_id: null, payment_intent_id: 'pi_3RpkRenewalQm2LdVh1', invoice_id: null,
      charge_id: 'ch_3RpkRenewalQm2LdVh1', kept: true,
    });
    const link = load<Event>('invoice-payment-paid');
    expect(await send(link)).toEqual(answer(link, 'recorded', 'payment_linked', null));
    // The link released the waiting refund: its stored outcome is updated, and a redelivery answers it.
    expect(await storedEvent(t, refund.id)).toMatchObject({ outcome: 'recorded', reason: 'refund_recorded', sale_id: 2 });
    expect(await send(refund)).toEqual(answer(refund, 'recorded', 'refund_recorded', 2, true));
    expect((await refunds(t)).map((r) => [r.refund_id, r.sale_id, r.amount_cents])).toEqual([['ch_3RpkRenewalQm2LdVh1:3190', 2, 3190]]);
    expect((await commissions(t))[1]).toMatchObject({ sale_id: 2, status: 'reversed' });
  });

  test('an invoice payment naming neither a payment intent nor a charge is skipped / no_payment_reference', async () => {
    const { send, variant } = await merchant();
    const event = variant('invoice-payment-paid', 'evt_no_payment', (o) => (o.payment = { type: 'payment_record', payment_record: 'prec_1' }));
    expect(await send(event)).toEqual(answer(event, 'skipped', 'no_payment_reference', null));
  });
});

describe('charge.refunded: out of order, unknown, test mode, refused', () => {
  test('a refund before its sale\'s event waits (sale_not_found) and is recorded when the checkout arrives', async () => {
    const { t, send, load } = await merchant();
    const refund = load<Event>('refund-full');
    expect(await send(refund)).toEqual(answer(refund, 'skipped', 'sale_not_found', null));
    const checkout = load<Event>('checkout-one-time');
    expect(await send(checkout)).toEqual(answer(checkout, 'recorded', null, 1));
    expect(await storedEvent(t, refund.id)).toMatchObject({ outcome: 'recorded', reason: 'refund_recorded', sale_id: 1 });
    expect(await commissions(t)).toEqual([{ sale_id: 1, amount_cents: 1100, status: 'reversed', type: 'sale' }]);
  });

  test('basil, everything backwards: refund, then link, then the renewal itself', async () => {
    const { t, send, load } = await merchant();
    await send(load('checkout-subscription'));
    expect((await send(load('refund-invoice-basil'))).body.reason).toBe('sale_not_found');
    expect((await send(load('invoice-payment-paid'))).body.reason).toBe('payment_linked');
    expect(await t.count('refunds')).toBe(0);
    const renewal = load<Event>('invoice-renewal');
    expect(await send(renewal)).toEqual(answer(renewal, 'recorded', null, 2));
    expect((await refunds(t)).map((r) => [r.sale_id, r.amount_cents])).toEqual([[2, 3190]]);
  });

  test('an unknown charge is 200 skipped / sale_not_found, stored with its body; nothing else', async () => {
    const { t, send, variant } = await merchant();
    const event = variant('refund-full', 'evt_unknown', (c) => Object.assign(c, { id: 'ch_unknown', payment_intent: 'pi_unknown' }));
    expect(await send(event)).toEqual(answer(event, 'skipped', 'sale_not_found', null));
    expect(await storedEvent(t, 'evt_unknown')).toMatchObject({ kept: true, charge_id: 'ch_unknown', payment_intent_id: 'pi_unknown' });
    expect(await t.count('refunds')).toBe(0);
  });

  test('a test-mode refund refunds the test sale: recorded / test_mode, no sale id, no commission touched', async () => {
    const { t, send, load } = await merchant();
    const checkout = load<Event>('checkout-one-time');
    checkout.livemode = false;
    expect((await send(checkout)).body).toMatchObject({ outcome: 'recorded', reason: 'test_mode' });
    const refund = load<Event>('refund-full');
    refund.livemode = false;
    expect(await send(refund)).toEqual(answer(refund, 'recorded', 'test_mode', null));
    expect(await refunds(t)).toEqual([expect.objectContaining({ mode: 'test', sale_id: 1, amount_cents: 5499 })]);
    expect(await t.count('commissions')).toBe(0);
  });

  test.each([
    ['program_id of another program in the charge metadata', (c: any) => (c.metadata = { program_id: '999' }), 'program_mismatch'],
    ['amount_refunded 0', (c: any) => (c.amount_refunded = 0), 'non_positive_amount'],
    ['amount_refunded as text', (c: any) => (c.amount_refunded = '5499'), 'malformed_event'],
    ['amount_refunded 12.5', (c: any) => (c.amount_refunded = 12.5), 'malformed_event'],
    ['no charge id', (c: any) => delete c.id, 'malformed_event'],
  ])('%s: skipped / %s, nothing refunded', async (_name, change, reason) => {
    const { t, send, load, variant } = await merchant();
    await send(load('checkout-one-time'));
    const event = variant('refund-full', 'evt_refused', change);
    expect(await send(event)).toEqual(answer(event, 'skipped', reason, null));
    expect(await t.count('refunds')).toBe(0);
  });
});
