import type { Sql } from './db.js';

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

type ResultRow = PerformanceTotals & { current: boolean; day: string | null };

/*
 * One round trip: each event table is aggregated per (window, UTC day) over both windows at once,
 * filtered on program_id and its time column so DuckDB skips row groups by their zone maps (events
 * are stored roughly in (program_id, time) order; no ART index needed). A day spine for both
 * windows gives the days without activity; GROUPING SETS add each window's totals. A UTC day is
 * CAST(ts AS DATE): measured on 10 M clicks it groups about three times faster than integer
 * division of epoch_us. $1 program, $2 previousFrom, $3 from, $4 to, $5 previousTo.
 */
const PERFORMANCE_SQL = `
WITH
click_days AS (
  SELECT created_at >= $3 AS current, CAST(created_at AS DATE) AS day, count(*) AS clicks
  FROM clicks
  WHERE program_id = $1 AND created_at BETWEEN $2 AND $4 AND NOT is_test
  GROUP BY ALL
),
lead_days AS (
  SELECT signup_date >= $3 AS current, CAST(signup_date AS DATE) AS day,
    count(*) AS leads, count(*) FILTER (WHERE status = 'lead') AS lead_status
  FROM customers
  WHERE program_id = $1 AND signup_date BETWEEN $2 AND $4 AND status IN ('lead', 'conversion')
  GROUP BY ALL
),
conversion_days AS (
  SELECT first_purchase_date >= $3 AS current, CAST(first_purchase_date AS DATE) AS day, count(*) AS conversions
  FROM customers
  WHERE program_id = $1 AND first_purchase_date BETWEEN $2 AND $4 AND status = 'conversion'
  GROUP BY ALL
),
sale_days AS (
  SELECT paid_at >= $3 AS current, CAST(paid_at AS DATE) AS day, sum(amount_cents) AS revenue_cents, count(*) AS sales
  FROM (SELECT coalesce(occurred_at, received_at) AS paid_at, amount_cents FROM sale_events WHERE program_id = $1 AND status = 'paid')
  WHERE paid_at BETWEEN $2 AND $4
  GROUP BY ALL
),
partner_days AS (
  SELECT created_at >= $3 AS current, CAST(created_at AS DATE) AS day, count(*) AS partners
  FROM partner_programs
  WHERE program_id = $1 AND created_at BETWEEN $2 AND $4
  GROUP BY ALL
),
commission_days AS (
  SELECT created_at >= $3 AS current, CAST(created_at AS DATE) AS day, sum(amount_cents) AS commission_cents
  FROM commissions
  WHERE program_id = $1 AND created_at BETWEEN $2 AND $4
  GROUP BY ALL
),
spine AS (
  SELECT false AS current, CAST(day AS DATE) AS day FROM generate_series(CAST($2 AS DATE), CAST($5 AS DATE), INTERVAL 1 DAY) AS r(day)
  UNION ALL
  SELECT true AS current, CAST(day AS DATE) AS day FROM generate_series(CAST($3 AS DATE), CAST($4 AS DATE), INTERVAL 1 DAY) AS r(day)
)
SELECT
  s.current,
  strftime(s.day, '%Y-%m-%d') AS day,
  CAST(coalesce(sum(c.clicks), 0) AS BIGINT) AS clicks,
  CAST(coalesce(sum(l.leads), 0) AS BIGINT) AS leads,
  CAST(coalesce(sum(l.lead_status), 0) AS BIGINT) AS "leadStatus",
  CAST(coalesce(sum(v.conversions), 0) AS BIGINT) AS conversions,
  CAST(coalesce(sum(x.revenue_cents), 0) AS BIGINT) AS "revenueCents",
  CAST(coalesce(sum(x.sales), 0) AS BIGINT) AS sales,
  CAST(coalesce(sum(p.partners), 0) AS BIGINT) AS partners,
  CAST(coalesce(sum(m.commission_cents), 0) AS BIGINT) AS "commissionCents"
FROM spine s
  LEFT JOIN click_days c ON c.current = s.current AND c.day = s.day
  LEFT JOIN lead_days l ON l.current = s.current AND l.day = s.day
  LEFT JOIN conversion_days v ON v.current = s.current AND v.day = s.day
  LEFT JOIN sale_days x ON x.current = s.current AND x.day = s.day
  LEFT JOIN partner_days p ON p.current = s.current AND p.day = s.day
  LEFT JOIN commission_days m ON m.current = s.current AND m.day = s.day
GROUP BY GROUPING SETS ((s.current, s.day), (s.current))
ORDER BY s.current, s.day NULLS LAST
`;

/** The current window's days (oldest first) and both windows' totals, in one query. */
export async function performance(
  sql: Sql,
  programId: number,
  w: PerformanceWindows,
): Promise<{ days: PerformanceDayRow[]; current: PerformanceTotals; previous: PerformanceTotals }> {
  const rows = await sql.all<ResultRow>(PERFORMANCE_SQL, [programId, w.previousFrom, w.from, w.to, w.previousTo]);
  const totals = (current: boolean) => {
    const { current: _, day: __, ...sums } = rows.find((r) => r.current === current && r.day === null)!;
    return sums;
  };
  const days = rows.filter((r) => r.current && r.day !== null).map(({ current: _, ...row }) => row as PerformanceDayRow);
  return { days, current: totals(true), previous: totals(false) };
}
