import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, type ProgramFixture, type TestApp } from '../helpers/app.js';

/**
 * GET /api/tracking/performance/:programId/partners (docs/behaviour.md §14.5): a row per partner,
 * by revenue then clicks, adding up to the program report. Its errors and credentials are the
 * program report's: performance.test.ts and the shared authorization suite.
 */
const NOW = '2026-03-10T15:00:00.000Z';

function get(t: TestApp, url: string, token = ADMIN_TOKEN) {
  return t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
}

type Partner = { id: number; refCode: string };

/**
 * A hand-built history around 2026-03-10 with five partners of program A: events on the edges of
 * a custom date-time range (03-04 12:00:00.000 and 03-06 07:00–09:00), a sale dated by its
 * occurred_at the evening before, a renewal, test data and another program's sales that never count.
 */
async function history() {
  const t = await buildTestApp({ now: '2026-02-20T09:00:00.000Z' });
  const a = await t.program(); // partner 1: Partner, enrolled with the program
  const b = await t.program({ name: 'Other program' });
  const enroll = async (name: string): Promise<Partner> => {
    const partner = await t.partner({ name });
    return { id: partner.id, ...(await t.enroll(a.id, partner.id)) };
  };
  const p1: Partner = { id: a.partnerId, refCode: a.refCode };
  const ann = await enroll('Ann'); // partner 3 (2 is program B's)
  const bob = await enroll('Bob');
  const cat = await enroll('Cat'); // one click, no money
  const dan = await enroll('Dan'); // nothing at all
  const clicks = async (p: Partner, n: number) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push(await t.click(p));
    return ids;
  };

  t.clock.set('2026-02-26T10:00:00.000Z');
  const early1 = await clicks(p1, 3);
  const early2 = await clicks(ann, 2);
  await t.lead(a, 'c1', { click_id: early1[0] });
  await t.lead(a, 'c2', { click_id: early2[0] });
  await t.lead(b, 'b1', { click_id: (await clicks({ id: b.partnerId, refCode: b.refCode }, 1))[0] });

  t.clock.set('2026-02-27T10:00:00.000Z');
  await t.sale(a, { transaction_id: 't2', amount_cents: 3000, customer_key: 'c2' });

  t.clock.set('2026-03-04T12:00:00.000Z');
  await clicks(p1, 2);
  const bobs = await clicks(bob, 1);
  await t.lead(a, 'c3', { click_id: bobs[0] });
  await t.sale(a, { transaction_id: 't1', amount_cents: 4999, customer_key: 'c1', sale_type: 'subscription', subscription_id: 'sub_1' });
  const testClick = await t.click(p1, { test: true });
  await t.sale(a, { transaction_id: 'tt1', amount_cents: 100_000, customer_key: undefined, click_id: testClick }, a.testApiKey);
  await t.sale(a, { transaction_id: 'tt2', amount_cents: 100_000, customer_key: 'c3', livemode: false });
  await t.sale(b, { transaction_id: 'b-t1', amount_cents: 777_777, customer_key: 'b1' });

  t.clock.set('2026-03-06T07:00:00.000Z');
  const anns = await clicks(ann, 3);
  await t.lead(a, 'c4', { click_id: anns[0] });
  await t.lead(a, 'c5', { click_id: anns[1] });
  t.clock.set('2026-03-06T08:00:00.000Z');
  await t.sale(a, { transaction_id: 't4', amount_cents: 2500, customer_key: 'c4' });
  t.clock.set('2026-03-06T09:00:00.000Z');
  await t.sale(a, { transaction_id: 't3', amount_cents: 10_001, customer_key: 'c3', occurred_at: '2026-03-05T23:30:00Z' });

  t.clock.set('2026-03-08T10:00:00.000Z');
  await t.sale(a, { transaction_id: 't1-r1', amount_cents: 4999, customer_key: 'c1', sale_type: 'subscription', subscription_id: 'sub_1', is_recurring: true });
  await clicks(cat, 1);

  t.clock.set(NOW);
  await clicks(bob, 1);
  return { t, a, p1, ann, bob, cat, dan };
}

const row = (p: Partner, name: string, values: Partial<Record<'clicks' | 'leads' | 'conversions' | 'sales' | 'revenue' | 'commission' | 'conversionRate', number>> = {}) => ({
  partnerId: p.id, name, refCode: p.refCode, clicks: 0, leads: 0, conversions: 0, sales: 0, revenue: 0, commission: 0, conversionRate: 0, ...values,
});

describe('GET /api/tracking/performance/:programId/partners', () => {
  test('7d (the default): every partner of the program with exact numbers, by revenue, then clicks, then partner id', async () => {
    const { t, a, p1, ann, bob, cat, dan } = await history();
    const response = await get(t, `/api/tracking/performance/${a.id}/partners`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: [
        // c3's sale of 100.01 was paid on 03-05 (occurred_at), converted and earned on 03-06.
        row(bob, 'Bob', { clicks: 2, conversions: 1, sales: 1, revenue: 100.01, commission: 20, conversionRate: 50 }),
        // c1's first payment (03-04) and renewal (03-08); c1 signed up before the window.
        row(p1, 'Partner', { clicks: 2, conversions: 1, sales: 2, revenue: 99.98, commission: 20, conversionRate: 50 }),
        // c4 bought, c5 is still a lead; 1 × 100 ÷ 3 clicks.
        row(ann, 'Ann', { clicks: 3, leads: 1, conversions: 1, sales: 1, revenue: 25, commission: 5, conversionRate: 33.33 }),
        row(cat, 'Cat', { clicks: 1 }),
        row(dan, 'Dan'),
      ],
      meta: { period: '7d', dateFrom: '2026-03-04T00:00:00.000Z', dateTo: '2026-03-10T23:59:59.999Z' },
    });
  });

  test('a custom date-time range counts only the events inside it: the edge days are partial', async () => {
    const { t, a, p1, ann, bob, cat, dan } = await history();
    const response = await get(t, `/api/tracking/performance/${a.id}/partners?dateFrom=2026-03-04T12:00:00.500Z&dateTo=2026-03-06T07:00:00%2B00:00`);
    expect(response.json()).toEqual({
      data: [
        // Only the sale dated 03-05 23:30; Bob's click, lead and c3's conversion fall outside.
        row(bob, 'Bob', { sales: 1, revenue: 100.01 }),
        // Ann's clicks and leads at 07:00:00.000 are inside (both bounds inclusive), c4's purchase at 08:00 is not.
        row(ann, 'Ann', { clicks: 3, leads: 1 }),
        // Everything of 03-04 happened at 12:00:00.000, half a second before the range.
        row(p1, 'Partner'),
        row(cat, 'Cat'),
        row(dan, 'Dan'),
      ],
      meta: { period: 'custom', dateFrom: '2026-03-04T12:00:00.500Z', dateTo: '2026-03-06T07:00:00.000Z' },
    });
  });

  test.each([
    ['7d', 'period=7d'],
    ['30d', 'period=30d'],
    ['90d', 'period=90d'],
    ['all', 'period=all'],
    ['a custom date range', 'dateFrom=2026-02-26&dateTo=2026-03-06'],
    ['a custom date-time range', 'dateFrom=2026-03-04T12:00:00.500Z&dateTo=2026-03-06T07:00:00Z'],
    ['a range before anything happened', 'dateFrom=2026-01-01&dateTo=2026-01-31'],
  ])("%s: the partners' rows add up to the program report's totals", async (_name, query) => {
    const { t, a } = await history();
    const [program, partners] = await Promise.all(
      [`/api/tracking/performance/${a.id}?${query}`, `/api/tracking/performance/${a.id}/partners?${query}`].map(async (url) => (await get(t, url)).json()),
    );
    const sum = (field: string) => partners.data.reduce((total: number, r: Record<string, number>) => total + r[field], 0);
    const cents = (field: string) => partners.data.reduce((total: number, r: Record<string, number>) => total + Math.round(r[field] * 100), 0);
    const m = program.metrics;
    expect({
      clicks: sum('clicks'), leads: sum('leads'), conversions: sum('conversions'), sales: sum('sales'),
      revenueCents: cents('revenue'), commissionCents: cents('commission'),
    }).toEqual({
      clicks: m.totalClicks, leads: m.totalLeads, conversions: m.totalConversions, sales: m.totalSales,
      revenueCents: Math.round(m.totalRevenue * 100), commissionCents: Math.round(m.totalPartnersCommission * 100),
    });
    expect(partners.meta).toEqual({ period: program.meta.period, dateFrom: program.meta.dateFrom, dateTo: program.meta.dateTo });
    expect(partners.data).toHaveLength(5);
  });

  test('all: the whole history, the other program and test data left out', async () => {
    const { t, a, p1, ann, bob, cat, dan } = await history();
    const body = (await get(t, `/api/tracking/performance/${a.id}/partners?period=all`)).json();
    expect(body.data).toEqual([
      row(bob, 'Bob', { clicks: 2, conversions: 1, sales: 1, revenue: 100.01, commission: 20, conversionRate: 50 }),
      row(p1, 'Partner', { clicks: 5, conversions: 1, sales: 2, revenue: 99.98, commission: 20, conversionRate: 20 }),
      row(ann, 'Ann', { clicks: 5, leads: 1, conversions: 2, sales: 2, revenue: 55, commission: 11, conversionRate: 40 }),
      row(cat, 'Cat', { clicks: 1 }),
      row(dan, 'Dan'),
    ]);
  });

  test('ties: equal revenue goes by clicks, equal clicks by partner id; an inactive partner keeps its row', async () => {
    const t = await buildTestApp({ now: NOW });
    const program = await t.program();
    const others: Partner[] = [];
    for (const name of ['Eve', 'Fay', 'Gus']) {
      const partner = await t.partner({ name });
      others.push({ id: partner.id, ...(await t.enroll(program.id, partner.id)) });
    }
    const [eve, fay, gus] = others;
    await t.click(gus);
    await t.click(fay);
    await t.click(fay);
    await t.store.transaction((sql) => sql.run('UPDATE partner_programs SET status = $1 WHERE id = $2', ['inactive', program.partnerProgramId]));
    const body = (await get(t, `/api/tracking/performance/${program.id}/partners`)).json();
    expect(body.data.map((r: { partnerId: number; clicks: number }) => [r.partnerId, r.clicks])).toEqual([
      [fay.id, 2], [gus.id, 1], [program.partnerId, 0], [eve.id, 0],
    ]);
  });

  test('a program without partners answers an empty list', async () => {
    const t = await buildTestApp({ now: NOW });
    const program = await t.admin('POST', '/programs', { name: 'Empty' });
    expect((await get(t, `/api/tracking/performance/${program.id}/partners`)).json()).toEqual({
      data: [], meta: { period: '7d', dateFrom: '2026-03-04T00:00:00.000Z', dateTo: '2026-03-10T23:59:59.999Z' },
    });
  });

  test('a dashboard session of an active member sees it', async () => {
    const { t, a } = await history();
    await t.admin('POST', `/programs/${a.id}/members`, { email: 'analyst@example.com' });
    const { token } = await t.admin('POST', '/sessions', { email: 'analyst@example.com' });
    const response = await get(t, `/api/tracking/performance/${a.id}/partners?period=30d`, token);
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toHaveLength(5);
  });
});
