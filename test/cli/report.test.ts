import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cliEnv, runCli, tempDataDir } from '../helpers/cli.js';
import { openTestStore } from '../helpers/engine.js';

// Runs against dist/: `npm run build` first.
const NOW = '2026-03-10T15:00:00.000Z';

function cli(dataDir: string, args: string[], env: Record<string, string> = {}) {
  return runCli(args, cliEnv(dataDir, { PARTNERKIT_NOW: NOW, PARTNERKIT_SESSION_TOKEN: '', ...env }));
}

const DEMO = ['demo', '--days', '10', '--clicks', '3000', '--seed', '5', '--json'];

type Day = { date: string; period: string; clicks: number; leads: number; conversions: number; revenue: number; partners: number; sales: number; commission: number };
type Totals = { clicks: number; leads: number; leadStatus: number; conversions: number; revenueCents: number; partners: number; sales: number; commissionCents: number };

/** Each event of program 1 with the UTC day that dates it in the report (the specification's dating), read from the data dir's database. */
type Events = {
  clicks: string[];
  customers: Array<{ signup: string; status: string; firstPurchase: string | null }>;
  sales: Array<{ day: string; cents: number }>;
  partners: string[];
  commissions: Array<{ day: string; cents: number }>;
};

async function readEvents(dataDir: string): Promise<Events> {
  const day = (column: string) => `CAST(CAST(${column} AS DATE) AS VARCHAR)`; // YYYY-MM-DD on both engines
  const store = await openTestStore({ dataDir });
  try {
    return await store.read(async (sql) => ({
      clicks: (await sql.all<{ day: string }>(`SELECT ${day('created_at')} AS day FROM clicks WHERE program_id = 1 AND NOT is_test ORDER BY id`)).map((r) => r.day),
      customers: await sql.all(
        `SELECT ${day('signup_date')} AS signup, status, ${day('first_purchase_date')} AS "firstPurchase" FROM customers WHERE program_id = 1 ORDER BY id`,
      ),
      sales: await sql.all(`SELECT ${day('coalesce(occurred_at, received_at)')} AS day, amount_cents AS cents FROM sale_events WHERE program_id = 1 AND status = 'paid' ORDER BY id`),
      partners: (await sql.all<{ day: string }>(`SELECT ${day('created_at')} AS day FROM partner_programs WHERE program_id = 1 ORDER BY id`)).map((r) => r.day),
      commissions: await sql.all(`SELECT ${day('created_at')} AS day, amount_cents AS cents FROM commissions WHERE program_id = 1 ORDER BY id`),
    }));
  } finally {
    await store.close();
  }
}

/** The events of the days from `from` to `to` (inclusive), summed. */
function totals(events: Events, from: string, to: string): Totals {
  const inside = (d: string | null) => d !== null && d >= from && d <= to;
  const cents = (rows: Array<{ day: string; cents: number }>) => rows.filter((r) => inside(r.day)).reduce((sum, r) => sum + r.cents, 0);
  const signedUp = events.customers.filter((c) => inside(c.signup));
  return {
    clicks: events.clicks.filter(inside).length,
    leads: signedUp.length,
    leadStatus: signedUp.filter((c) => c.status === 'lead').length,
    conversions: events.customers.filter((c) => c.status === 'conversion' && inside(c.firstPurchase)).length,
    revenueCents: cents(events.sales),
    partners: events.partners.filter(inside).length,
    sales: events.sales.filter((s) => inside(s.day)).length,
    commissionCents: cents(events.commissions),
  };
}

/** One row per day from `from` to `to`, as the report's data[] shows it. */
function days(events: Events, from: string, to: string): Day[] {
  const rows: Day[] = [];
  for (let at = Date.parse(from); at <= Date.parse(to); at += 86_400_000) {
    const date = new Date(at).toISOString().slice(0, 10);
    const t = totals(events, date, date);
    rows.push({
      date, period: date, clicks: t.clicks, leads: t.leads, conversions: t.conversions, revenue: t.revenueCents / 100,
      // The daily sales field is always 0 by the specification; paid sales count in totalSales.
      partners: t.partners, sales: 0, commission: t.commissionCents / 100,
    });
  }
  return rows;
}

/** The specification's trend: percent change to one decimal, half away from zero. */
function trend(current: number, previous: number) {
  if (previous === 0) return current > 0 ? { trend: 100, trendDirection: 'up' } : { trend: 0, trendDirection: 'stable' };
  return { trend: Math.round((Math.abs(current - previous) * 1000) / previous) / 10, trendDirection: current > previous ? 'up' : current < previous ? 'down' : 'stable' };
}

// One data dir for the whole file (the demo is loaded once), removed after the file.
let dataDir: string;
let demo: { programId: number; sessionToken: string; counts: Record<string, number> };
let events: Events;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'partnerkit-report-'));
  const result = await cli(dataDir, DEMO);
  expect(result.code, result.stderr).toBe(0);
  demo = JSON.parse(result.stdout);
  events = await readEvents(dataDir);
});

afterAll(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('partnerkit demo', () => {
  test('loads the requested history; its counts and the report over all of it are the rows in the file', async () => {
    const all = totals(events, '2026-03-01', '2026-03-10');
    // Every row of the file is inside the ten days.
    expect(all.clicks).toBe(events.clicks.length);
    expect(all.sales).toBe(events.sales.length);
    expect(demo.programId).toBe(1);
    expect(all.leadStatus).toBe(demo.counts.leads - demo.counts.conversions);
    expect(demo.counts).toMatchObject({
      clicks: 3000, partners: all.partners, leads: all.leads, conversions: all.conversions, sales: all.sales, commissions: events.commissions.length,
    });
    const report = JSON.parse((await cli(dataDir, ['report', 'performance', '1', '--period', 'all', '--json'])).stdout);
    expect(report.meta).toMatchObject({ period: 'all', dateFrom: '2026-03-01T00:00:00.000Z', dateTo: '2026-03-10T23:59:59.999Z' });
    expect(report.data).toEqual(days(events, '2026-03-01', '2026-03-10'));
    expect(report.metrics).toMatchObject({
      totalClicks: 3000,
      totalLeads: all.leadStatus,
      totalConversions: all.conversions,
      totalRevenue: all.revenueCents / 100,
      totalSales: all.sales,
      totalPartners: all.partners,
      totalPartnersCommission: all.commissionCents / 100,
    });
  });

  test('the same seed gives the same history', async () => {
    const other = tempDataDir();
    const again = await cli(other, DEMO);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).counts).toEqual(demo.counts);
    expect(await readEvents(other)).toEqual(events);
    const args = ['report', 'performance', '1', '--period', 'all', '--json'];
    expect((await cli(other, args)).stdout).toBe((await cli(dataDir, args)).stdout);
  });
});

describe('partnerkit report performance', () => {
  test('--json prints the endpoint body: the last 7 days of the file, each metric and trend', async () => {
    const result = await cli(dataDir, ['report', 'performance', '1', '--json']);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(Object.keys(body)).toEqual(['data', 'metrics', 'meta']);
    expect(body.meta).toEqual({
      period: '7d',
      dateFrom: '2026-03-04T00:00:00.000Z',
      dateTo: '2026-03-10T23:59:59.999Z',
      previousPeriod: { dateFrom: '2026-02-25T00:00:00.000Z', dateTo: '2026-03-03T23:59:59.999Z' },
    });
    expect(body.data).toEqual(days(events, '2026-03-04', '2026-03-10'));
    const now = totals(events, '2026-03-04', '2026-03-10');
    const before = totals(events, '2026-02-25', '2026-03-03');
    expect(body.metrics).toEqual({
      totalClicks: now.clicks,
      totalLeads: now.leadStatus,
      totalConversions: now.conversions,
      totalRevenue: now.revenueCents / 100,
      conversionRate: now.clicks === 0 ? 0 : Math.round((now.conversions * 10_000) / now.clicks) / 100,
      averageOrderValue: now.conversions === 0 ? 0 : Math.round(now.revenueCents / now.conversions) / 100,
      totalPartners: now.partners,
      totalSales: now.sales,
      totalPartnersCommission: now.commissionCents / 100,
      totalRefunded: 0,
      clicksTrend: trend(now.clicks, before.clicks),
      leadsTrend: trend(now.leadStatus, before.leadStatus),
      conversionsTrend: trend(now.conversions, before.conversions),
      revenueTrend: trend(now.revenueCents, before.revenueCents),
      partnersTrend: trend(now.partners, before.partners),
      salesTrend: trend(now.sales, before.sales),
      commissionTrend: trend(now.commissionCents, before.commissionCents),
      refundedTrend: { trend: 0, trendDirection: 'stable' },
    });
  });

  test('the table: dates in the heading, a row per day, totals with trend arrows, footnotes, within 80 columns', async () => {
    const { stdout, code } = await cli(dataDir, ['report', 'performance', '1']);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('Program 1 performance, 7d: 2026-03-04 – 2026-03-10 (UTC days)');
    expect(lines[1]).toBe('Compared with 2026-02-25 – 2026-03-03 (UTC days)');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    // Counts and money with thousands separators, money with two decimals (docs/cli.md#tables-and-numbers).
    const cellsOf = (line: string) => line.trim().split(/ {2,}/);
    const counted = (n: number) => n.toLocaleString('en-US');
    const dollars = (n: number) => n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    for (const day of days(events, '2026-03-04', '2026-03-10')) {
      const row = lines.find((l) => l.startsWith(`${day.date} `))!;
      // The daily sales (always 0) are left out; paid sales are in the totals.
      expect(cellsOf(row)).toEqual([
        day.date, counted(day.clicks), counted(day.leads), counted(day.conversions), dollars(day.revenue), counted(day.partners), dollars(day.commission),
      ]);
    }
    expect(lines.some((l) => /^2026-03-\d\d .* \d{1,3},\d{3}\.\d\d  /.test(l)), 'a day with revenue above 1,000 dollars').toBe(true);
    // The column that reads as broken without a word says what it is.
    expect(cellsOf(lines[2])).toEqual(['Date', 'Clicks', 'Leads', 'Conversions', 'Revenue', 'Partners¹', 'Commission']);
    const afterDays = lines.indexOf('Totals');
    expect(lines[afterDays - 1]).toBe('¹ Partners who joined the program that day (new enrollments).');
    expect(lines.at(-1)).toBe("² Revenue per conversion (a customer's first purchase), not per sale.");
    const metrics = lines.slice(afterDays + 3, afterDays + 13).map((l) => cellsOf(l)[0]);
    expect(metrics).toEqual([
      'Clicks', 'Leads (status lead)', 'Conversions', 'Revenue', 'Partners joined¹', 'Sales (paid)', 'Commission', 'Refunded', 'Conversion rate', 'Average order value²',
    ]);
    const now = totals(events, '2026-03-04', '2026-03-10');
    const arrows = { up: '▲', down: '▼', stable: '■' } as const;
    const clicksTrend = trend(now.clicks, totals(events, '2026-02-25', '2026-03-03').clicks);
    const clicks = lines.slice(afterDays).find((l) => l.startsWith('Clicks '))!;
    expect(clicks).toContain(`${arrows[clicksTrend.trendDirection as keyof typeof arrows]} ${clicksTrend.trend.toFixed(1)}%`);
    expect(clicks).toContain(now.clicks.toLocaleString('en-US'));
    const rate = (Math.round((now.conversions * 10_000) / now.clicks) / 100).toFixed(2);
    expect(lines.find((l) => l.startsWith('Conversion rate '))).toContain(`${rate}%`);
    // The demo has no refunds: nothing refunded in either window.
    expect(lines.find((l) => l.startsWith('Refunded '))).toMatch(/ 0\.00 +■ 0\.0%$/);
  });

  test('--csv prints a header line and one line per day', async () => {
    const { stdout } = await cli(dataDir, ['report', 'performance', '1', '--from', '2026-03-08', '--to', '2026-03-10', '--csv']);
    expect(stdout).toBe(
      [
        'date,period,clicks,leads,conversions,revenue,partners,sales,commission',
        ...days(events, '2026-03-08', '2026-03-10').map((r) =>
          [r.date, r.period, r.clicks, r.leads, r.conversions, r.revenue.toFixed(2), r.partners, r.sales, r.commission.toFixed(2)].join(','),
        ),
      ].join('\n') + '\n',
    );
  });

  test('a session token is used when given; a bad one fails with its error code', async () => {
    const ok = await cli(dataDir, ['report', 'performance', '1', '--json'], { PARTNERKIT_SESSION_TOKEN: demo.sessionToken });
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.stdout).metrics.totalClicks).toBe(totals(events, '2026-03-04', '2026-03-10').clicks);
    const bad = await cli(dataDir, ['report', 'performance', '1', '--session-token', 'pks_nope']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('unauthorized');
    const missing = await cli(dataDir, ['report', 'performance', '99', '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout).error).toMatchObject({ code: 'not_found', status: 404 });
  });
});

describe('partnerkit report partners', () => {
  type Row = { partnerId: number; name: string; refCode: string; clicks: number; leads: number; conversions: number; sales: number; codeSales: number; revenue: number; commission: number; conversionRate: number };

  test("--json prints the endpoint body: every partner by revenue, adding up to the program report's totals", async () => {
    const body = JSON.parse((await cli(dataDir, ['report', 'partners', '1', '--json'])).stdout) as { data: Row[]; meta: object };
    expect(body.meta).toEqual({ period: '7d', dateFrom: '2026-03-04T00:00:00.000Z', dateTo: '2026-03-10T23:59:59.999Z' });
    expect(body.data).toHaveLength(demo.counts.partners);
    const revenues = body.data.map((r) => r.revenue);
    expect(revenues).toEqual([...revenues].sort((a, b) => b - a));
    const now = totals(events, '2026-03-04', '2026-03-10');
    const sum = (field: keyof Row) => body.data.reduce((total, r) => total + Math.round(Number(r[field]) * 100), 0) / 100;
    expect([sum('clicks'), sum('leads'), sum('conversions'), sum('sales'), sum('revenue'), sum('commission')]).toEqual([
      now.clicks, now.leadStatus, now.conversions, now.sales, now.revenueCents / 100, now.commissionCents / 100,
    ]);
  });

  test('the table: a line per partner with its id and name, within 80 columns; --limit shows the first N', async () => {
    const rows = (JSON.parse((await cli(dataDir, ['report', 'partners', '1', '--period', 'all', '--json'])).stdout) as { data: Row[] }).data;
    const { stdout, code } = await cli(dataDir, ['report', 'partners', '1', '--period', 'all', '--limit', '3']);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('Program 1 partners, all: 2026-03-01 – 2026-03-10 (UTC days), by revenue');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines.slice(3, -1).map((l) => l.trim().split(/ {2,}/).map((c) => c.replace(/,/g, '')))).toEqual(
      rows.slice(0, 3).map((r) => [
        `#${r.partnerId} ${r.name}`, String(r.clicks), String(r.leads), String(r.conversions), r.revenue.toFixed(2), r.commission.toFixed(2), `${r.conversionRate.toFixed(2)}%`,
      ]),
    );
    expect(lines.at(-1)).toBe(`… ${rows.length - 3} more (--limit)`);
  });

  test('--csv prints a header line and one line per partner; --limit applies to it and to --json', async () => {
    const rows = (JSON.parse((await cli(dataDir, ['report', 'partners', '1', '--json', '--limit', '2'])).stdout) as { data: Row[] }).data;
    expect(rows).toHaveLength(2);
    const { stdout } = await cli(dataDir, ['report', 'partners', '1', '--csv', '--limit', '2']);
    expect(stdout).toBe(
      [
        'partnerId,name,refCode,clicks,leads,conversions,sales,codeSales,revenue,commission,conversionRate',
        ...rows.map((r) =>
          [r.partnerId, r.name, r.refCode, r.clicks, r.leads, r.conversions, r.sales, r.codeSales, r.revenue.toFixed(2), r.commission.toFixed(2), r.conversionRate.toFixed(2)].join(','),
        ),
      ].join('\n') + '\n',
    );
  });

  test('the session token and the errors are the program report’s', async () => {
    const ok = await cli(dataDir, ['report', 'partners', '1', '--json'], { PARTNERKIT_SESSION_TOKEN: demo.sessionToken });
    expect(ok.code).toBe(0);
    const missing = await cli(dataDir, ['report', 'partners', '99', '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout).error).toMatchObject({ code: 'not_found', status: 404 });
  });
});
