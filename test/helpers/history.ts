import { buildTestApp, type TestApp, type TestAppOptions } from './app.js';

/** The instant the report tests read their history at. */
export const NOW = '2026-03-10T15:00:00.000Z';

/** The report queries the history is checked over: every period, and custom ranges whose edge days are whole and partial. */
export const REPORT_QUERIES: Array<[string, string]> = [
  ['7d', 'period=7d'],
  ['30d', 'period=30d'],
  ['90d', 'period=90d'],
  ['all', 'period=all'],
  ['a custom date range', 'dateFrom=2026-02-26&dateTo=2026-03-06'],
  ['a custom date-time range', 'dateFrom=2026-03-04T12:00:00.500Z&dateTo=2026-03-06T07:00:00Z'],
  ['a range before anything happened', 'dateFrom=2026-01-01&dateTo=2026-01-31'],
];

/** A partner's enrollment in a program: what a click needs. */
export type Enrolled = { partnerId: number; refCode: string };

async function clicks(t: TestApp, partner: Pick<Enrolled, 'refCode'>, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await t.click(partner));
  return ids;
}

/**
 * A hand-built history around 2026-03-10 (the 7d window is 03-04..03-10, the previous one
 * 02-25..03-03) for the program report and its per-partner split: program A's first partner (p1,
 * "Partner") brings the February clicks and customer c1, p2 (enrolled 02-28) the clicks of 03-04 and
 * now and customer c3, p3 (enrolled 03-05) those of 03-06 and customers c4 and c5. Events sit on the
 * edges of a custom date-time range (03-04 12:00:00.000, 03-06 07:00–09:00); a sale is dated by its
 * occurred_at the evening before; test-mode data and a second program's on the same days must not
 * count.
 */
export async function reportHistory(options: TestAppOptions = {}) {
  const t = await buildTestApp({ ...options, now: '2026-02-20T09:00:00.000Z' });
  const a = await t.program();
  const b = await t.program({ name: 'Other program' });
  const enroll = async (email: string): Promise<Enrolled> => {
    const partner = await t.partner({ name: email, email });
    return { partnerId: partner.id, refCode: (await t.enroll(a.id, partner.id)).refCode };
  };
  const p1: Enrolled = { partnerId: a.partnerId, refCode: a.refCode };

  t.clock.set('2026-02-26T10:00:00.000Z');
  const early = await clicks(t, p1, 5);
  await t.lead(a, 'c1', { click_id: early[0] });
  await t.lead(a, 'c2', { click_id: early[1] });
  const other = await clicks(t, b, 2);
  await t.lead(b, 'b1', { click_id: other[0] });

  t.clock.set('2026-02-27T10:00:00.000Z');
  await t.sale(a, { transaction_id: 't2', amount_cents: 3000, customer_key: 'c2' });

  t.clock.set('2026-02-28T10:00:00.000Z');
  const p2 = await enroll('p2@example.com');

  t.clock.set('2026-03-01T10:00:00.000Z');
  await clicks(t, p1, 3);

  t.clock.set('2026-03-04T12:00:00.000Z');
  const march4 = await clicks(t, p2, 2);
  await t.lead(a, 'c3', { click_id: march4[0] });
  await t.sale(a, { transaction_id: 't1', amount_cents: 4999, customer_key: 'c1', sale_type: 'subscription', subscription_id: 'sub_1' });
  // Test mode and the other program, on days the report covers: never counted.
  const testClick = await t.click(a, { test: true });
  await t.sale(a, { transaction_id: 'tt1', amount_cents: 100_000, customer_key: undefined, click_id: testClick }, a.testApiKey);
  await t.sale(a, { transaction_id: 'tt2', amount_cents: 100_000, customer_key: 'c3', additional_data: { test_mode: true } });
  await t.sale(a, { transaction_id: 'tt3', amount_cents: 100_000, customer_key: 'c3', livemode: false });
  await t.sale(b, { transaction_id: 'b-t1', amount_cents: 777_777, customer_key: 'b1' });
  await clicks(t, b, 4);

  t.clock.set('2026-03-05T10:00:00.000Z');
  const p3 = await enroll('p3@example.com');

  t.clock.set('2026-03-06T07:00:00.000Z');
  const march6 = await clicks(t, p3, 3);
  await t.lead(a, 'c4', { click_id: march6[0] });
  await t.lead(a, 'c5', { click_id: march6[1] });
  t.clock.set('2026-03-06T08:00:00.000Z');
  await t.sale(a, { transaction_id: 't4', amount_cents: 2500, customer_key: 'c4' });
  t.clock.set('2026-03-06T09:00:00.000Z');
  // Paid the evening before: revenue counts on 03-05 (occurred_at), the conversion and commission on 03-06.
  await t.sale(a, { transaction_id: 't3', amount_cents: 10_001, customer_key: 'c3', occurred_at: '2026-03-05T23:30:00Z' });

  t.clock.set('2026-03-08T10:00:00.000Z');
  await t.sale(a, {
    transaction_id: 't1-r1', amount_cents: 4999, customer_key: 'c1', sale_type: 'subscription', subscription_id: 'sub_1', is_recurring: true,
  });

  t.clock.set(NOW);
  await t.click(p2);
  return { t, a, b, p1, p2, p3 };
}
