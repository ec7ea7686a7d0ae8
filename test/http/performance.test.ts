import { describe, expect, test, vi } from 'vitest';
import { buildTestApp, ADMIN_TOKEN, getReport, type ProgramFixture, type TestApp } from '../helpers/app.js';
import { NOW, reportHistory as history } from '../helpers/history.js';
import { insertCommissions, insertSaleEvents } from '../../src/store/sales.js';

/** Each report is read with its rows pending and again rolled up (getReport). */
const get = getReport;

const meta = (period: string, dateFrom: string, dateTo: string, previousFrom: string, previousTo: string) => ({
  period, dateFrom, dateTo, previousPeriod: { dateFrom: previousFrom, dateTo: previousTo },
});

const zero = { clicks: 0, leads: 0, conversions: 0, revenue: 0, partners: 0, sales: 0, commission: 0 };
const day = (date: string, values: Partial<typeof zero> = {}) => ({ date, period: date, ...zero, ...values });

describe('GET /api/tracking/performance/:programId', () => {
  test('7d (the default): one row per day, every metric and trend, test data and other programs left out', async () => {
    const { t, a } = await history();
    const response = await get(t, `/api/tracking/performance/${a.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: [
        day('2026-03-04', { clicks: 2, leads: 1, conversions: 1, revenue: 49.99, commission: 10 }),
        day('2026-03-05', { revenue: 100.01, partners: 1 }),
        day('2026-03-06', { clicks: 3, leads: 2, conversions: 2, revenue: 25, commission: 25 }),
        day('2026-03-07'),
        day('2026-03-08', { revenue: 49.99, commission: 10 }),
        day('2026-03-09'),
        day('2026-03-10', { clicks: 1 }),
      ],
      metrics: {
        totalClicks: 6,
        totalLeads: 1,
        totalConversions: 3,
        totalRevenue: 224.99,
        conversionRate: 50,
        averageOrderValue: 75,
        totalPartners: 1,
        totalSales: 4,
        totalPartnersCommission: 45,
        totalRefunded: 0,
        clicksTrend: { trend: 25, trendDirection: 'down' },
        leadsTrend: { trend: 100, trendDirection: 'up' },
        conversionsTrend: { trend: 200, trendDirection: 'up' },
        revenueTrend: { trend: 650, trendDirection: 'up' },
        partnersTrend: { trend: 0, trendDirection: 'stable' },
        salesTrend: { trend: 300, trendDirection: 'up' },
        commissionTrend: { trend: 650, trendDirection: 'up' },
        refundedTrend: { trend: 0, trendDirection: 'stable' },
      },
      meta: meta('7d', '2026-03-04T00:00:00.000Z', '2026-03-10T23:59:59.999Z', '2026-02-25T00:00:00.000Z', '2026-03-03T23:59:59.999Z'),
    });
  });

  test('a custom date-only range: whole UTC days, previous window of equal length', async () => {
    const { t, a } = await history();
    const body = (await get(t, `/api/tracking/performance/${a.id}?dateFrom=2026-02-26&dateTo=2026-03-01&period=90d`)).json();
    expect(body.meta).toEqual(meta('custom', '2026-02-26T00:00:00.000Z', '2026-03-01T23:59:59.999Z', '2026-02-22T00:00:00.000Z', '2026-02-25T23:59:59.999Z'));
    expect(body.data).toEqual([
      day('2026-02-26', { clicks: 5, leads: 2 }),
      day('2026-02-27', { conversions: 1, revenue: 30, commission: 6 }),
      day('2026-02-28', { partners: 1 }),
      day('2026-03-01', { clicks: 3 }),
    ]);
    expect(body.metrics).toMatchObject({
      totalClicks: 8, totalLeads: 0, totalConversions: 1, totalRevenue: 30, conversionRate: 12.5, averageOrderValue: 30,
      totalPartners: 1, totalSales: 1, totalPartnersCommission: 6,
      clicksTrend: { trend: 100, trendDirection: 'up' }, // previous 0
      leadsTrend: { trend: 0, trendDirection: 'stable' }, // both 0
      salesTrend: { trend: 100, trendDirection: 'up' },
    });
  });

  test('a custom date-time range is taken as given; rows are its UTC days, counting only events inside it', async () => {
    const { t, a } = await history();
    const body = (await get(t, `/api/tracking/performance/${a.id}?dateFrom=2026-03-04T12:00:00.500Z&dateTo=2026-03-06T07:00:00%2B00:00`)).json();
    expect(body.meta).toEqual(meta('custom', '2026-03-04T12:00:00.500Z', '2026-03-06T07:00:00.000Z', '2026-03-02T17:00:00.999Z', '2026-03-04T12:00:00.499Z'));
    // 03-04's clicks, lead and sale at 12:00:00.000 fall just before the range (previous window);
    // 03-06's clicks and leads at 07:00:00.000 are inside it (both bounds inclusive), its sales after it.
    expect(body.data).toEqual([
      day('2026-03-04'),
      day('2026-03-05', { revenue: 100.01, partners: 1 }),
      day('2026-03-06', { clicks: 3, leads: 2 }),
    ]);
    expect(body.metrics).toMatchObject({
      totalClicks: 3, totalConversions: 0, totalRevenue: 100.01, totalSales: 1, averageOrderValue: 0,
      clicksTrend: { trend: 50, trendDirection: 'up' },
      conversionsTrend: { trend: 100, trendDirection: 'down' },
      revenueTrend: { trend: 100.1, trendDirection: 'up' },
      commissionTrend: { trend: 100, trendDirection: 'down' },
    });
  });

  test('windows inside one hour (no whole hour or day, so no rollups read): only their events count', async () => {
    const { t, a } = await history();
    // 03-06's three clicks and two leads at 07:00:00.000: inside [06:59:59.000, 07:00:00.500], none in the previous window.
    const body = (await get(t, `/api/tracking/performance/${a.id}?dateFrom=2026-03-06T06:59:59.000Z&dateTo=2026-03-06T07:00:00.500Z`)).json();
    expect(body.data).toEqual([day('2026-03-06', { clicks: 3, leads: 2 })]);
    expect(body.metrics).toMatchObject({ totalClicks: 3, clicksTrend: { trend: 100, trendDirection: 'up' } });
  });

  test('a previous window starting inside a day counts only the events of that day after its start', async () => {
    const t = await buildTestApp({ now: '2026-03-01T09:00:00.000Z' });
    const program = await t.program();
    t.clock.set('2026-03-02T10:00:00.000Z');
    await t.click(program); // before the previous window (it starts 03-02 17:00:00.999): in neither
    t.clock.set('2026-03-02T18:00:00.000Z');
    await t.click(program); // previous window
    t.clock.set('2026-03-04T13:00:00.000Z');
    await t.click(program); // current window
    await t.click(program, { test: true }); // a test click: never counted
    t.clock.set('2026-03-06T09:00:00.000Z');
    await t.click(program); // after the current window's end on its last day: in neither
    t.clock.set(NOW);
    const body = (await get(t, `/api/tracking/performance/${program.id}?dateFrom=2026-03-04T12:00:00.500Z&dateTo=2026-03-06T07:00:00Z`)).json();
    expect(body.data.map((d: { date: string; clicks: number }) => [d.date, d.clicks])).toEqual([['2026-03-04', 1], ['2026-03-05', 0], ['2026-03-06', 0]]);
    expect(body.metrics.totalClicks).toBe(1);
    expect(body.metrics.clicksTrend).toEqual({ trend: 0, trendDirection: 'stable' });
  });

  test.each([
    ['7d', '2026-03-04', '2026-02-25T00:00:00.000Z', '2026-03-03T23:59:59.999Z', 7],
    ['30d', '2026-02-09', '2026-01-10T00:00:00.000Z', '2026-02-08T23:59:59.999Z', 30],
    ['90d', '2025-12-11', '2025-09-12T00:00:00.000Z', '2025-12-10T23:59:59.999Z', 90],
    ['all', '2026-02-20', '2026-02-01T00:00:00.000Z', '2026-02-19T23:59:59.999Z', 19],
  ])('period=%s: meta dates and one row per day', async (period, firstDay, previousFrom, previousTo, rows) => {
    const t = await buildTestApp({ now: '2026-02-20T09:00:00.000Z' });
    const program = await t.program();
    t.clock.set(NOW);
    const body = (await get(t, `/api/tracking/performance/${program.id}?period=${period}`)).json();
    expect(body.meta).toEqual(meta(period, `${firstDay}T00:00:00.000Z`, '2026-03-10T23:59:59.999Z', previousFrom, previousTo));
    expect(body.data).toHaveLength(rows);
    expect(body.data[0].date).toBe(firstDay);
    expect(body.data.at(-1).date).toBe('2026-03-10');
    // The enrollment at creation (02-20) is the only event; the 7d window does not reach back to it.
    const partners = period === '7d' ? 0 : 1;
    expect(body.metrics.totalPartners).toBe(partners);
    expect(body.metrics.partnersTrend).toEqual(partners ? { trend: 100, trendDirection: 'up' } : { trend: 0, trendDirection: 'stable' });
    expect(body.metrics.clicksTrend).toEqual({ trend: 0, trendDirection: 'stable' });
    expect(body.metrics.conversionRate).toBe(0);
    expect(body.metrics.averageOrderValue).toBe(0);
  });

  // Refusals (no, unknown or expired session, a program API key) are in the shared authorization suite.
  test('a dashboard session of an active member sees the report', async () => {
    const { t, a } = await history();
    await t.admin('POST', `/programs/${a.id}/members`, { email: 'analyst@example.com' });
    const { token } = await t.admin('POST', '/sessions', { email: 'analyst@example.com', ttlHours: 2 });
    const ok = await get(t, `/api/tracking/performance/${a.id}`, token);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().metrics.totalClicks).toBe(6);
  });

  // Both program reports, per day and per partner (docs/reports.md#per-partner-report), answer the same errors.
  describe.each(['', '/partners'])('errors of /api/tracking/performance/:programId%s after authorization (its 401s are in the shared suite), in the order 400, 404, 403', (report) => {
    const url = (path: string) => path.replace(/^(\/api\/tracking\/performance\/[^/?]*)/, `$1${report}`);

    test.each([
      ['programId not a number', '/api/tracking/performance/abc', 'programId'],
      ['programId 0', '/api/tracking/performance/0', 'programId'],
      ['unknown period', '/api/tracking/performance/999?period=1y', 'period'],
      ['malformed dateFrom', '/api/tracking/performance/999?dateFrom=yesterday&dateTo=2026-03-01', 'dateFrom'],
      ['impossible dateTo', '/api/tracking/performance/999?dateFrom=2026-02-01&dateTo=2026-02-30', 'dateTo'],
      ['only dateFrom', '/api/tracking/performance/999?dateFrom=2026-02-01', 'dateTo'],
      ['only dateTo', '/api/tracking/performance/999?dateTo=2026-02-01', 'dateFrom'],
      ['dateFrom after dateTo', '/api/tracking/performance/999?dateFrom=2026-02-02&dateTo=2026-02-01', 'dateFrom'],
      ['a range over ten years', '/api/tracking/performance/999?dateFrom=2000-01-01&dateTo=2026-02-01', 'dateTo'],
    ])('%s is 400 invalid_request naming the field, before the 404', async (_name, path, field) => {
      const t = await buildTestApp();
      const response = await get(t, url(path));
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ data: null, error: { status: 400, name: 'ValidationError', code: 'invalid_request' } });
      expect(response.json().error.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    });

    test('an unknown program is 404, also for a user who is a member elsewhere', async () => {
      const t = await buildTestApp();
      const program = await t.program();
      await t.admin('POST', `/programs/${program.id}/members`, { email: 'analyst@example.com' });
      const { token } = await t.admin('POST', '/sessions', { email: 'analyst@example.com' });
      for (const credential of [ADMIN_TOKEN, token]) {
        const response = await get(t, url('/api/tracking/performance/999'), credential);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual({
          data: null, error: { status: 404, name: 'NotFoundError', message: 'Program 999 not found', details: null, code: 'not_found' },
        });
      }
    });

    test('a user who is not an active member of the program is 403', async () => {
      const t = await buildTestApp();
      const mine = await t.program();
      const theirs = await t.program();
      await t.admin('POST', `/programs/${mine.id}/members`, { email: 'analyst@example.com' });
      await t.admin('POST', `/programs/${theirs.id}/members`, { email: 'former@example.com' });
      await t.admin('POST', `/programs/${theirs.id}/members/remove`, { email: 'former@example.com' });
      const forbidden = (message: string) => ({
        data: null, error: { status: 403, name: 'ForbiddenError', message, details: null, code: 'forbidden' },
      });
      for (const email of ['analyst@example.com', 'former@example.com']) {
        const { token } = await t.admin('POST', '/sessions', { email });
        const response = await get(t, url(`/api/tracking/performance/${theirs.id}`), token);
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual(forbidden(`You are not an active member of program ${theirs.id}`));
      }
    });
  });
});

describe('sums beyond 2^53 (docs/reports.md#rounding)', () => {
  const MAX = 9_007_199_254_740_991; // the largest amount_cents the API accepts
  const COMMISSION = 1_801_439_850_948_198; // 20 % of it, half up

  /**
   * `count` more paid sales of MAX with their 20 % commissions at `at`, written straight to the
   * store (an API call each would take minutes), through append() as every store function writes.
   */
  async function bigSales(t: TestApp, program: ProgramFixture, customerId: number, firstId: number, count: number, at: string) {
    const ids = Array.from({ length: count }, (_, i) => firstId + i);
    const common = { program_id: program.id, partner_program_id: program.partnerProgramId, currency: 'USD' };
    await t.store.transaction(async (sql) => {
      await insertSaleEvents(sql, ids.map((id) => ({
        ...common, id, customer_id: customerId, transaction_id: `in_big_${id}`, amount_cents: MAX, tax_cents: null, sale_type: 'payment', is_recurring: false,
        subscription_id: null, subscription_interval: null, product_id: null, provider: null, provider_payment_id: null, line_items: null, source: 'api',
        status: 'paid', occurred_at: null, received_at: new Date(at), payment_intent_id: null, charge_id: null,
      })));
      await insertCommissions(sql, ids.map((id) => ({
        ...common, id, sale_id: id, amount_cents: COMMISSION, status: 'pending', hold_until: new Date(at), created_at: new Date(at), type: 'sale',
        payout_id: null, paid_at: null, reason: null, percent_bp: null,
      })));
    });
  }

  test('1,030 sales of 2^53 − 1 cents today and 1,029 in the previous window: 200 with totals exact to the cent, as the nearest JSON numbers', async () => {
    const t = await buildTestApp({ now: '2026-03-01T00:00:00.000Z' });
    const program = await t.program();
    t.clock.set(NOW);
    const { customerId } = await t.lead(program, 'cust_1');
    // One through the API, which accepts the amount, and 1,029 more beside it.
    const sale = await t.sale(program, { transaction_id: 'in_api', amount_cents: MAX });
    expect(sale).toMatchObject({ success: true, sale_id: expect.any(Number), commission_id: expect.any(Number) });
    await bigSales(t, program, customerId, 1_000, 1_029, NOW);
    await bigSales(t, program, customerId, 10_000, 1_029, '2026-03-03T12:00:00.000Z');

    const response = await get(t, `/api/tracking/performance/${program.id}`);
    expect(response.statusCode, response.body).toBe(200);
    // Exact sums: 1,030 × 9,007,199,254,740,991 = 9,277,415,232,383,220,730 cents and
    // 1,030 × 1,801,439,850,948,198 = 1,855,483,046,476,643,940 cents; a JSON number keeps about 16
    // significant digits of those dollars, the literals below are their nearest doubles.
    const revenue = 92_774_152_323_832_207.3;
    const commission = 18_554_830_464_766_439.4;
    expect(response.json()).toEqual({
      data: [
        day('2026-03-04'), day('2026-03-05'), day('2026-03-06'), day('2026-03-07'), day('2026-03-08'), day('2026-03-09'),
        day('2026-03-10', { clicks: 1, leads: 1, conversions: 1, revenue, commission }),
      ],
      metrics: {
        totalClicks: 1,
        totalLeads: 0,
        totalConversions: 1,
        totalRevenue: revenue,
        conversionRate: 100,
        averageOrderValue: revenue,
        totalPartners: 0,
        totalSales: 1_030,
        totalPartnersCommission: commission,
        totalRefunded: 0,
        clicksTrend: { trend: 100, trendDirection: 'up' },
        leadsTrend: { trend: 0, trendDirection: 'stable' },
        conversionsTrend: { trend: 100, trendDirection: 'up' },
        // 1 × MAX × 100 ÷ (1,029 × MAX) = 0.097… %
        revenueTrend: { trend: 0.1, trendDirection: 'up' },
        partnersTrend: { trend: 100, trendDirection: 'down' }, // the partner enrolled with the program on 03-01
        salesTrend: { trend: 0.1, trendDirection: 'up' },
        commissionTrend: { trend: 0.1, trendDirection: 'up' },
        refundedTrend: { trend: 0, trendDirection: 'stable' },
      },
      meta: meta('7d', '2026-03-04T00:00:00.000Z', '2026-03-10T23:59:59.999Z', '2026-02-25T00:00:00.000Z', '2026-03-03T23:59:59.999Z'),
    });
    expect(response.body).toContain('"totalRevenue":92774152323832210,');
    expect(response.body).toContain('"totalPartnersCommission":18554830464766440,');
  });
});

describe('POST /api/admin/demo (the demo loader inside a running server)', () => {
  test('loads a deterministic history the report then shows', async () => {
    const t = await buildTestApp({ now: NOW });
    const first = await t.admin('POST', '/demo', { days: 5, clicks: 500, seed: 3 });
    const second = await t.admin('POST', '/demo', { days: 5, clicks: 500, seed: 3 });
    expect(second.counts).toEqual(first.counts);
    expect(first).toMatchObject({ from: '2026-03-06T00:00:00.000Z', to: NOW, memberEmail: 'demo@partnerkit.local' });
    const reports = await Promise.all(
      [first, second].map(async (demo) => (await get(t, `/api/tracking/performance/${demo.programId}?period=all`, demo.sessionToken)).json()),
    );
    expect(reports[0].metrics.totalClicks).toBe(500);
    expect(reports[0].metrics.totalSales).toBe(first.counts.sales);
    expect(reports[1]).toEqual(reports[0]);
    // Ids came from the allocator: a live click after the load does not collide.
    const program = await t.program();
    expect(await t.click(program)).toMatch(/^ck_1001_/);
  });

  test('a load failing after its partners and clicks were written leaves none of its rows: the program reports nothing', async () => {
    const t = await buildTestApp({ now: NOW });
    const nextId = t.store.nextId.bind(t.store);
    vi.spyOn(t.store, 'nextId').mockImplementation(async (sql, table, count) => {
      if (table === 'customers') throw new Error('IO Error: simulated failure');
      return nextId(sql, table, count);
    });
    const response = await t.app.inject({ method: 'POST', url: '/api/admin/demo', payload: { days: 5, clicks: 500, seed: 3 }, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(response.statusCode).toBe(500);
    expect([await t.count('partners'), await t.count('partner_programs'), await t.count('clicks')]).toEqual([0, 0, 0]);
    // The program was created before the load began.
    const report = (await get(t, '/api/tracking/performance/1?period=all')).json();
    expect(report.metrics).toMatchObject({ totalClicks: 0, totalLeads: 0, totalSales: 0, totalPartners: 0, totalRevenue: 0 });
  });
});
