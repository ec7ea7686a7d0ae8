import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, buildTestApp } from '../helpers/app.js';
import { sendWebhook, stripeMerchant, webhookServer } from '../helpers/stripe.js';
import { counts, delta, seededRandom } from './support.js';

/**
 * Webhook redelivery storm: Stripe retries, redelivers and reorders. The same signed event many
 * times at once is one sale; a subscription's events in any order give the same totals.
 */
const SEED = 5_2026;

async function merchant() {
  const t = await buildTestApp();
  const m = await stripeMerchant(t);
  return { t, program: m.program, load: (name: string) => JSON.stringify(m.load(name), null, 2) };
}

function shuffle<T>(items: T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

describe('webhook redelivery storm', () => {
  test.each(['checkout-one-time', 'checkout-subscription', 'invoice-renewal'])(
    '%s delivered 20 times concurrently over real connections (each re-signed, as Stripe retries): one sale, one commission, one event',
    async (name) => {
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
      expect(first[0].body).toMatchObject({ outcome: 'recorded', sale_id: expect.any(Number) });
      // Nothing else is stored; the customer may convert (a first sale) or be converted already (a renewal).
      const { conversions, ...rows } = delta(before, await counts(t.store));
      expect(rows).toEqual({ sale_events: 1, commissions: 1, sale_transactions: 1, webhook_events: 1 });
      expect(conversions ?? 0).toBeLessThanOrEqual(1);
      expect(await t.count('sale_events', `id = ${first[0].body.sale_id}`)).toBe(1);
    },
  );

  test("a subscription's events in shuffled orders, with redeliveries mixed in: one sale each, the same report totals whatever the order", { timeout: 60_000 }, async () => {
    const events = [
      'checkout-subscription', 'invoice-first', 'invoice-renewal', 'invoice-renewal-legacy', 'invoice-paid-renewal',
      'invoice-renewal-no-metadata', 'invoice-zero-amount',
    ];
    const random = seededRandom(SEED);
    const orders = [events, [...events].reverse(), ...Array.from({ length: 6 }, () => shuffle(events, random))];

    const outcomes: Array<{ order: string[]; metrics: unknown; sales: unknown; webhookEvents: number }> = [];
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
      const sales = await t.store.read((sql) =>
        sql.all('SELECT s.transaction_id, s.amount_cents, c.amount_cents AS commission FROM sale_events s LEFT JOIN commissions c ON c.sale_id = s.id ORDER BY s.transaction_id'),
      );
      outcomes.push({ order, metrics: { totalSales, totalRevenue, totalPartnersCommission, totalConversions }, sales, webhookEvents: await t.count('webhook_events') });
    }

    const [canonical] = outcomes;
    // In the order Stripe sends them: the first payment, then four paid renewals (zero-amount and subscription_create skip).
    expect(canonical.metrics).toEqual({ totalSales: 5, totalRevenue: 147.9, totalPartnersCommission: 29.58, totalConversions: 1 });
    expect(canonical.webhookEvents).toBe(events.length);
    for (const outcome of outcomes.slice(1)) {
      expect({ order: outcome.order, metrics: outcome.metrics, sales: outcome.sales, webhookEvents: outcome.webhookEvents }).toEqual({
        order: outcome.order, metrics: canonical.metrics, sales: canonical.sales, webhookEvents: canonical.webhookEvents,
      });
    }
  });
});
