import { utcDay, type Sql } from './db.js';

/** What one day (or one whole window) of a program sums to; money in integer cents. */
export type PerformanceTotals = {
  clicks: number;
  /** Customers signed up, status lead or conversion (the daily `leads`). */
  leads: number;
  /** Customers signed up whose status is still lead (`totalLeads`). */
  leadStatus: number;
  conversions: number;
  revenueCents: number;
  sales: number;
  partners: number;
  commissionCents: number;
};

export type PerformanceDayRow = PerformanceTotals & { day: string };

export type PerformanceWindows = { from: Date; to: Date; previousFrom: Date; previousTo: Date };

const METRICS = ['clicks', 'leads', 'leadStatus', 'conversions', 'revenueCents', 'sales', 'partners', 'commissionCents'] as const;

/**
 * Where each metric comes from (DECISIONS §4 dating): its table, the instant that dates it, the
 * stored UTC day of that instant, and its filter. Test data never counts: test clicks are flagged,
 * test sales live in their own table.
 */
const SOURCES = [
  { sums: 'count(*) AS clicks', table: 'clicks', at: 'created_at', day: 'day', where: 'NOT is_test' },
  {
    sums: `count(*) AS leads, count(*) FILTER (WHERE status = 'lead') AS "leadStatus"`,
    // Every customer is a lead or a conversion (the table's CHECK), so no status filter: it cost a
    // fifth of the report at a million customers.
    table: 'customers', at: 'signup_date', day: 'signup_day', where: 'true',
  },
  { sums: 'count(*) AS conversions', table: 'customers', at: 'first_purchase_date', day: 'first_purchase_day', where: "status = 'conversion'" },
  {
    sums: 'sum(amount_cents) AS "revenueCents", count(*) AS sales',
    table: 'sale_events', at: 'coalesce(occurred_at, received_at)', day: 'paid_day', where: "status = 'paid'",
  },
  { sums: 'count(*) AS partners', table: 'partner_programs', at: 'created_at', day: 'CAST(created_at AS DATE)', where: 'true' },
  { sums: 'sum(amount_cents) AS "commissionCents"', table: 'commissions', at: 'created_at', day: 'day', where: 'true' },
];

const totals = METRICS.map((m) => `CAST(coalesce(sum("${m}"), 0) AS BIGINT) AS "${m}"`).join(', ');
const union = (select: (s: (typeof SOURCES)[number]) => string) => SOURCES.map(select).join('\n  UNION ALL BY NAME\n  ');

/*
 * One round trip. Each event table is aggregated per stored UTC day over both windows at once
 * ($2 previous start … $4 current end), filtered on program_id and its time column so DuckDB skips
 * row groups by their zone maps (events are stored in time order; no ART index needed). Grouping on
 * a stored DATE is several times faster than on CAST(ts AS DATE) and needs no second key for the
 * window: a day belongs to the current window from the current start's day on. When the current
 * window starts inside a day ($3 after midnight $5), the "split" row holds that day's part before
 * $3, which belongs to the previous window. A day spine lists the days without activity.
 */
const PERFORMANCE_SQL = `
WITH
per_day AS (
  ${union((s) => `SELECT ${s.day} AS day, ${s.sums} FROM ${s.table} WHERE program_id = $1 AND ${s.at} BETWEEN $2 AND $4 AND ${s.where} GROUP BY 1`)}
),
split AS (
  ${union((s) => `SELECT ${s.sums} FROM ${s.table} WHERE program_id = $1 AND ${s.at} >= $5 AND ${s.at} < $3 AND ${s.where}`)}
),
spine AS (
  SELECT CAST(d AS DATE) AS day FROM generate_series(CAST($2 AS DATE), CAST($4 AS DATE), INTERVAL 1 DAY) AS r(d)
)
SELECT false AS split, strftime(s.day, '%Y-%m-%d') AS day, ${totals}
FROM spine s LEFT JOIN per_day p ON p.day = s.day
GROUP BY s.day
UNION ALL
SELECT true, NULL, ${totals} FROM split
ORDER BY split, day
`;

const zero = (): PerformanceTotals => Object.fromEntries(METRICS.map((m) => [m, 0])) as PerformanceTotals;

function add(into: PerformanceTotals, row: PerformanceTotals, sign = 1): void {
  for (const m of METRICS) into[m] += sign * row[m];
}

/** The current window's days (oldest first) and both windows' totals, from one query's day sums. */
export async function performance(
  sql: Sql,
  programId: number,
  w: PerformanceWindows,
): Promise<{ days: PerformanceDayRow[]; current: PerformanceTotals; previous: PerformanceTotals }> {
  const fromDay = utcDay(w.from);
  const rows = await sql.all<PerformanceDayRow & { split: boolean }>(PERFORMANCE_SQL, [
    programId, w.previousFrom, w.from, w.to, new Date(`${fromDay}T00:00:00.000Z`),
  ]);
  const split = rows.find((r) => r.split)!;
  const current = zero();
  const previous = zero();
  add(previous, split);
  const days: PerformanceDayRow[] = [];
  for (const { split: _, ...row } of rows.filter((r) => !r.split)) {
    if (row.day < fromDay) {
      add(previous, row);
      continue;
    }
    if (row.day === fromDay) add(row, split, -1);
    add(current, row);
    days.push(row);
  }
  return { days, current, previous };
}
