import { describe, expect, test } from 'vitest';
import { buildTestApp, getReport } from '../helpers/app.js';
import { NOW, REPORT_QUERIES, reportHistory as history } from '../helpers/history.js';

/**
 * GET /api/tracking/performance/:programId/partners (docs/reports.md#per-partner-report): a row per partner,
 * by revenue then clicks, adding up to the program report. Its errors and credentials are the
 * program report's: performance.test.ts and the shared authorization suite.
 */
/** Each report is read with its rows pending and again rolled up (getReport). */
const get = getReport;

type Partner = { partnerId: number; refCode: string };

const row = (p: Partner, name: string, values: Partial<Record<'clicks' | 'leads' | 'conversions' | 'sales' | 'revenue' | 'commission' | 'conversionRate', number>> = {}) => ({
  partnerId: p.partnerId, name, refCode: p.refCode, clicks: 0, leads: 0, conversions: 0, sales: 0, codeSales: 0, revenue: 0, commission: 0, conversionRate: 0, ...values,
});

describe('GET /api/tracking/performance/:programId/partners', () => {
  test('7d (the default): every partner of the program with exact numbers, by revenue, then clicks, then partner id', async () => {
    const { t, a, p1, p2, p3 } = await history();
    const response = await get(t, `/api/tracking/performance/${a.id}/partners`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: [
        // c3's sale of 100.01 was paid on 03-05 (occurred_at), converted and earned on 03-06; 1 × 100 ÷ 3 clicks.
        row(p2, 'p2@example.com', { clicks: 3, conversions: 1, sales: 1, revenue: 100.01, commission: 20, conversionRate: 33.33 }),
        // c1's first payment (03-04) and renewal (03-08); c1 and its clicks are from February.
        row(p1, 'Partner', { conversions: 1, sales: 2, revenue: 99.98, commission: 20 }),
        // c4 bought, c5 is still a lead.
        row(p3, 'p3@example.com', { clicks: 3, leads: 1, conversions: 1, sales: 1, revenue: 25, commission: 5, conversionRate: 33.33 }),
      ],
      meta: { period: '7d', dateFrom: '2026-03-04T00:00:00.000Z', dateTo: '2026-03-10T23:59:59.999Z' },
    });
  });

  test('a custom date-time range counts only the events inside it: the edge days are partial', async () => {
    const { t, a, p1, p2, p3 } = await history();
    const response = await get(t, `/api/tracking/performance/${a.id}/partners?dateFrom=2026-03-04T12:00:00.500Z&dateTo=2026-03-06T07:00:00%2B00:00`);
    expect(response.json()).toEqual({
      data: [
        // Only the sale dated 03-05 23:30; p2's clicks and c3's lead (03-04 12:00:00.000) and c3's conversion fall outside.
        row(p2, 'p2@example.com', { sales: 1, revenue: 100.01 }),
        // p3's clicks and leads at 07:00:00.000 are inside (both bounds inclusive), c4's purchase at 08:00 is not.
        row(p3, 'p3@example.com', { clicks: 3, leads: 1 }),
        // c1's first payment happened at 03-04 12:00:00.000, half a second before the range.
        row(p1, 'Partner'),
      ],
      meta: { period: 'custom', dateFrom: '2026-03-04T12:00:00.500Z', dateTo: '2026-03-06T07:00:00.000Z' },
    });
  });

  test.each(REPORT_QUERIES)("%s: the partners' rows add up to the program report's totals", async (_name, query) => {
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
    expect(partners.data).toHaveLength(3);
  });

  test('all: the whole history, the other program and test data left out', async () => {
    const { t, a, p1, p2, p3 } = await history();
    const body = (await get(t, `/api/tracking/performance/${a.id}/partners?period=all`)).json();
    expect(body.data).toEqual([
      row(p1, 'Partner', { clicks: 8, conversions: 2, sales: 3, revenue: 129.98, commission: 26, conversionRate: 25 }),
      row(p2, 'p2@example.com', { clicks: 3, conversions: 1, sales: 1, revenue: 100.01, commission: 20, conversionRate: 33.33 }),
      row(p3, 'p3@example.com', { clicks: 3, leads: 1, conversions: 1, sales: 1, revenue: 25, commission: 5, conversionRate: 33.33 }),
    ]);
  });

  test('ties: equal revenue goes by clicks, equal clicks by partner id; an inactive partner keeps its row', async () => {
    const t = await buildTestApp({ now: NOW });
    const program = await t.program();
    const others: Partner[] = [];
    for (const name of ['Eve', 'Fay', 'Gus']) {
      const partner = await t.partner({ name });
      others.push({ partnerId: partner.id, refCode: (await t.enroll(program.id, partner.id)).refCode });
    }
    const [eve, fay, gus] = others;
    await t.click(gus);
    await t.click(fay);
    await t.click(fay);
    await t.store.transaction((sql) => sql.write({ table: 'partner_programs', set: 'status = $1', where: 'id = $2' }, ['inactive', program.partnerProgramId]));
    const body = (await get(t, `/api/tracking/performance/${program.id}/partners`)).json();
    expect(body.data.map((r: { partnerId: number; clicks: number }) => [r.partnerId, r.clicks])).toEqual([
      [fay.partnerId, 2], [gus.partnerId, 1], [program.partnerId, 0], [eve.partnerId, 0],
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
    expect(response.json().data).toHaveLength(3);
  });
});
