import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, buildTestApp } from '../helpers/app.js';
import { sendWebhook, stripeMerchant, SUBSCRIPTION, SUBSCRIPTION_SALES, webhookServer } from '../helpers/stripe.js';
import { counts, delta, salesOf, seededRandom, shuffle } from './support.js';

/**
 * Webhook redelivery storm: Stripe retries, redelivers and reorders. The same signed event many
 * times at once is one sale; a subscription's events in any order give the same sales and outcomes.
 */
const SEED = 5_2026;

async function merchant() {
  const t = await buildTestApp();
  const m = await stripeMerchant(t);
  return { t, program: m.program, load: (name: string) => JSON.stringify(m.load(name), null, 2) };
}

/** Each storm's fixture, the one sale it records, and how many customers it converts. */
const STORMS: Array<[string, { transaction_id: string; amount_cents: number; commission: number }, number]> = [
  ['checkout-one-time', { transaction_id: 'pi_3RpkOneTimeQm2LdVh1', amount_cents: 5499, commission: 1100 }, 1],
  ['checkout-subscription', { transaction_id: 'in_1RpkFirstQm2LdVhB3', amount_cents: 2900, commission: 580 }, 1],
  // Its customer converted with the subscription's checkout, delivered a month before.
  ['invoice-renewal', { transaction_id: 'in_1RpkRenewalQm2LdVhJ7', amount_cents: 3190, commission: 638 }, 0],
];

describe('webhook redelivery storm', () => {
  test.each(STORMS)(
    '%s delivered 20 times concurrently over real connections (each re-signed, as Stripe retries): one sale, one commission, one event',
    async (name, sale, conversions) => {
      const { t, program, load } = await merchant();
      if (name === 'invoice-renewal') {
        // The renewal's subscription started with the checkout; Stripe sends the renewal a month later.
        expect((await sendWebhook(t, program, load('checkout-subscription'))).status).toBe(200);
        t.clock.set('2026-03-29T12:00:00.000Z');
      }
      const { send } = await webhookServer(t, program);
      const payload = load(name);
      const now = Math.floor(t.clock.now().getTime() / 1000);
      const before = await counts(t.store);
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => send(payload, { timestamp: now - i, headers: { connection: 'close' } })));
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
      const first = answers.filter((a) => !a.body.redelivery);
      expect(first, 'exactly one delivery is the first').toHaveLength(1);
      // Every answer names the same outcome and sale; only the redelivery flag differs.
      for (const answer of answers) expect({ ...answer.body, redelivery: false }).toEqual(first[0].body);
      expect(first[0].body).toMatchObject({ outcome: 'recorded', reason: null, sale_id: expect.any(Number) });
      // Nothing else is stored.
      expect(delta(before, await counts(t.store))).toEqual({
        sale_events: 1, commissions: 1, sale_transactions: 1, webhook_events: 1, ...(conversions ? { conversions } : {}),
      });
      expect(await salesOf(t.store, `s.id = ${first[0].body.sale_id}`)).toEqual([sale]);
    },
  );

  test("a subscription's events in shuffled orders, with redeliveries mixed in: the same sales, outcomes and report totals whatever the order", { timeout: 60_000 }, async () => {
    const events = SUBSCRIPTION.map(([name]) => name);
    const random = seededRandom(SEED);
    const orders = [events, [...events].reverse(), ...Array.from({ length: 6 }, () => shuffle(events, random))];

    for (const order of orders) {
      const { t, program, load } = await merchant();
      // After the last renewal, so every event is in the past and within the attribution window.
      t.clock.set('2026-04-28T12:05:00.000Z');
      const stream = [...order, ...order.filter(() => random() < 0.5)];
      for (const name of stream) {
        const response = await sendWebhook(t, program, load(name));
        expect(response.status, `${name}: ${JSON.stringify(response.body)}`).toBe(200);
      }
      const report = await t.app.inject({ method: 'GET', url: `/api/tracking/performance/${program.id}?period=all`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(report.statusCode, report.body).toBe(200);
      const { totalSales, totalRevenue, totalPartnersCommission, totalConversions } = report.json().metrics;
      const stored = await t.store.read((sql) =>
        sql.all<{ event_id: string; outcome: string; reason: string | null; transaction_id: string | null }>(
          'SELECT w.event_id, w.outcome, w.reason, s.transaction_id FROM webhook_events w LEFT JOIN sale_events s ON s.id = w.sale_id',
        ),
      );
      const byEvent = new Map(stored.map((e) => [e.event_id, [e.outcome, e.reason, e.transaction_id]]));
      expect({
        order,
        metrics: { totalSales, totalRevenue, totalPartnersCommission, totalConversions },
        sales: await salesOf(t.store),
        events: events.map((name) => [name, ...(byEvent.get(JSON.parse(load(name)).id) ?? ['not stored'])]),
        webhookEvents: stored.length,
        conversions: await t.count('customers', "status = 'conversion'"),
      }).toEqual({
        order,
        // The first payment, then four paid renewals (zero-amount and subscription_create skip).
        metrics: { totalSales: 5, totalRevenue: 147.9, totalPartnersCommission: 29.58, totalConversions: 1 },
        sales: SUBSCRIPTION_SALES,
        events: SUBSCRIPTION,
        webhookEvents: events.length,
        conversions: 1,
      });
    }
  });
});
