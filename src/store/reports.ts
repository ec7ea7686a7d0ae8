import { utcDay } from '../days.js';
import { dayValue, type Sql } from './db.js';

/**
 * What one day (or one whole window) of a program sums to. Money is integer cents as a bigint: the
 * sum of amounts the API accepts (each up to 2^53 − 1) can pass 2^53 (docs/behaviour.md §5.9).
 */
export type PerformanceTotals = {
  clicks: number;
  /** Customers signed up, status lead or conversion (the daily `leads`). */
  leads: number;
  /** Customers signed up whose status is still lead (`totalLeads`). */
  leadStatus: number;
  conversions: number;
  revenueCents: bigint;
  sales: number;
  partners: number;
  commissionCents: bigint;
  /** Refunds received (`totalRefunded`). */
  refundedCents: bigint;
};

export type PerformanceDayRow = PerformanceTotals & { day: string };

export type PerformanceWindows = { from: Date; to: Date; previousFrom: Date; previousTo: Date };

const COUNTS = ['clicks', 'leads', 'leadStatus', 'conversions', 'sales', 'partners'] as const;
const MONEY = ['revenueCents', 'commissionCents', 'refundedCents'] as const;

/**
 * Where each metric comes from (docs/behaviour.md §5.5): its table, the instant that dates it, the
 * stored UTC day of that instant, its filter, and the column naming the partner's enrollment (the
 * per-partner report splits every source that has one; docs/behaviour.md §14.5). Test data never
 * counts: test clicks have no day (migration 003), so every filter on the day leaves them out; test
 * sales live in their own table. A new source of a metric goes here, once, for both reports.
 */
const SOURCES: Array<{ sums: string; table: string; at: string; day: string; where: string; enrollment: string | null }> = [
  { sums: 'count(*) AS clicks', table: 'clicks', at: 'created_at', day: 'day', where: 'true', enrollment: 'partner_program_id' },
  {
    sums: `count(*) AS leads, count(*) FILTER (WHERE status = 'lead') AS "leadStatus"`,
    // Every customer is a lead or a conversion (the table's CHECK), so no status filter: it cost a
    // fifth of the report at a million customers.
    table: 'customers', at: 'signup_date', day: 'signup_day', where: 'true', enrollment: 'partner_program_id',
  },
  {
    sums: 'count(*) AS conversions',
    table: 'customers', at: 'first_purchase_date', day: 'first_purchase_day', where: "status = 'conversion'", enrollment: 'partner_program_id',
  },
  {
    sums: 'sum(amount_cents) AS "revenueCents", count(*) AS sales',
    table: 'sale_events', at: 'coalesce(occurred_at, received_at)', day: 'paid_day', where: "status = 'paid'", enrollment: 'partner_program_id',
  },
  // Refunds net revenue, and a completed one takes its sale out of the count, on the sale's own day:
  // an append-only table carrying that day and the sale's enrollment, so no sale row is ever updated
  // (docs/behaviour.md §12.9). Test refunds have no days.
  {
    sums: '-sum(amount_cents) AS "revenueCents", -count(*) FILTER (WHERE completes_sale) AS sales',
    table: 'refunds', at: 'paid_at', day: 'paid_day', where: 'true', enrollment: 'partner_program_id',
  },
  { sums: 'sum(amount_cents) AS "refundedCents"', table: 'refunds', at: 'received_at', day: 'day', where: 'true', enrollment: 'partner_program_id' },
  { sums: 'count(*) AS partners', table: 'partner_programs', at: 'created_at', day: 'CAST(created_at AS DATE)', where: 'true', enrollment: null },
  {
    sums: 'sum(amount_cents) AS "commissionCents"',
    table: 'commissions', at: 'created_at', day: 'day', where: "status NOT IN ('reversed', 'rejected')", enrollment: 'partner_program_id',
  },
];

// Sums of money stay HUGEINT (DuckDB's sum of a BIGINT), which the store hands over as a bigint.
const sumAs = (type: string) => (m: string) => `CAST(coalesce(sum("${m}"), 0) AS ${type}) AS "${m}"`;
const totals = [...COUNTS.map(sumAs('BIGINT')), ...MONEY.map(sumAs('HUGEINT'))].join(', ');
const union = (select: (s: (typeof SOURCES)[number]) => string) => SOURCES.map(select).join('\n  UNION ALL BY NAME\n  ');
/** The part of one day (the DATE parameter `day`) inside an instant range: the day column prunes. */
const edgeRow = (name: string, day: string, inRange: (at: string) => string) =>
  `SELECT '${name}', NULL, ${totals} FROM (
  ${union((s) => `SELECT ${s.sums} FROM ${s.table} WHERE program_id = $1 AND ${s.day} = ${day} AND ${inRange(s.at)} AND ${s.where}`)}
)`;

/*
 * One round trip. Each event table is aggregated per stored UTC day over the days both windows
 * touch ($6 … $7), filtered on program_id and the day so DuckDB skips row groups by their zone
 * maps (events are stored in time order; no ART index needed) and reads no timestamp: grouping
 * and filtering on a stored DATE is several times faster than on the instant. Three "edge" rows
 * hold the parts of the boundary days outside a window, read by instant from one day's row groups:
 * "head", the first day before the previous window's start $2; "split", the current start's day
 * before $3 (it belongs to the previous window); "tail", the last day after the end $4. A day
 * spine lists the days without activity.
 */
const PERFORMANCE_SQL = `
WITH
per_day AS (
  ${union((s) => `SELECT ${s.day} AS day, ${s.sums} FROM ${s.table} WHERE program_id = $1 AND ${s.day} BETWEEN $6 AND $7 AND ${s.where} GROUP BY 1`)}
),
spine AS (
  SELECT CAST(d AS DATE) AS day FROM generate_series($6, $7, INTERVAL 1 DAY) AS r(d)
)
SELECT NULL AS edge, strftime(s.day, '%Y-%m-%d') AS day, ${totals}
FROM spine s LEFT JOIN per_day p ON p.day = s.day
GROUP BY s.day
UNION ALL
${edgeRow('head', '$6', (at) => `${at} < $2`)}
UNION ALL
${edgeRow('split', '$5', (at) => `${at} < $3`)}
UNION ALL
${edgeRow('tail', '$7', (at) => `${at} > $4`)}
ORDER BY edge NULLS FIRST, day
`;

const zero = (): PerformanceTotals =>
  Object.fromEntries([...COUNTS.map((m) => [m, 0]), ...MONEY.map((m) => [m, 0n])]) as PerformanceTotals;

function add(into: PerformanceTotals, row: PerformanceTotals, sign: 1 | -1 = 1): void {
  for (const m of COUNTS) into[m] += sign * row[m];
  for (const m of MONEY) into[m] += BigInt(sign) * row[m];
}

/** The current window's days (oldest first) and both windows' totals, from one query's day sums. */
export async function performance(
  sql: Sql,
  programId: number,
  w: PerformanceWindows,
): Promise<{ days: PerformanceDayRow[]; current: PerformanceTotals; previous: PerformanceTotals }> {
  const fromDay = utcDay(w.from);
  const lastDay = utcDay(w.to);
  const rows = await sql.all<PerformanceDayRow & { edge: 'head' | 'split' | 'tail' | null }>(PERFORMANCE_SQL, [
    programId, w.previousFrom, w.from, w.to, dayValue(w.from), dayValue(w.previousFrom), dayValue(w.to),
  ]);
  const edge = (name: string) => rows.find((r) => r.edge === name)!;
  const current = zero();
  const previous = zero();
  add(previous, edge('split'));
  add(previous, edge('head'), -1);
  const days: PerformanceDayRow[] = [];
  for (const { edge: _, ...row } of rows.filter((r) => r.edge === null)) {
    if (row.day < fromDay) {
      add(previous, row);
      continue;
    }
    if (row.day === fromDay) add(row, edge('split'), -1);
    if (row.day === lastDay) add(row, edge('tail'), -1);
    add(current, row);
    days.push(row);
  }
  return { days, current, previous };
}

/** What a partner's events sum to (over the window, or one day of it). */
export type PartnerMetrics = {
  clicks: number;
  /** Customers signed up whose status is still lead, as the program report's `totalLeads`. */
  leadStatus: number;
  conversions: number;
  sales: number;
  revenueCents: bigint;
  commissionCents: bigint;
};

/** One partner's row of the per-partner report: what its enrollment's events sum to in the window. */
export type PartnerTotals = PartnerMetrics & { partnerId: number; name: string; refCode: string };

const PARTNER_COUNTS = ['clicks', 'leadStatus', 'conversions', 'sales'] as const;
/** The per-partner row has no refunded total (docs/behaviour.md §14.5): refunds net its revenue. */
const PARTNER_MONEY = ['revenueCents', 'commissionCents'] as const;
// The refunded total has no place in a partner's row; every other source with an enrollment splits.
const BY_ENROLLMENT = SOURCES.filter((s) => s.enrollment !== null && !s.sums.includes('refundedCents'));

/**
 * The partner sums are split either by enrollment (every partner of the program: the per-partner
 * report) or by stored day for one enrollment, the parameter $6 (a partner's own days: the partner
 * portal, docs/behaviour.md §15.6). Both are the same parts, so a partner's days add up to its row.
 */
type Split = 'enrollment' | 'day';

/** Each source summed per `split` where `inRange` holds, with a sign: the edges are subtracted. */
const signedParts = (split: Split, sign: 1 | -1, inRange: (s: (typeof SOURCES)[number]) => string) =>
  BY_ENROLLMENT.map((s) => {
    const key = split === 'enrollment' ? `${s.enrollment} AS enrollment` : `${s.day} AS day`;
    const partner = split === 'day' ? `${s.enrollment} = $6 AND ` : '';
    return `SELECT ${sign} AS sign, ${key}, ${s.sums} FROM ${s.table} WHERE program_id = $1 AND ${partner}${inRange(s)} AND ${s.where} GROUP BY ALL`;
  }).join('\n  UNION ALL BY NAME\n  ');
const signedSum = (type: string) => (m: string) => `CAST(coalesce(sum(sign * "${m}"), 0) AS ${type}) AS "${m}"`;
const PARTNER_METRICS = [...PARTNER_COUNTS, ...PARTNER_MONEY];

/*
 * The program report's sources split by `split`: each summed over the window's stored UTC days
 * ($2 … $3, pruned by zone maps without reading an instant), less the parts of the first day before
 * the start $4 and of the last day after the end $5, read by instant from one day's row groups.
 */
const windowSums = (split: Split) => `
parts AS (
  ${signedParts(split, 1, (s) => `${s.day} BETWEEN $2 AND $3`)}
  UNION ALL BY NAME
  ${signedParts(split, -1, (s) => `${s.day} = $2 AND ${s.at} < $4`)}
  UNION ALL BY NAME
  ${signedParts(split, -1, (s) => `${s.day} = $3 AND ${s.at} > $5`)}
),
sums AS (
  SELECT ${split}, ${[...PARTNER_COUNTS.map(signedSum('BIGINT')), ...PARTNER_MONEY.map(signedSum('HUGEINT'))].join(', ')}
  FROM parts GROUP BY ${split}
)`;
const metricsOf = (alias: string) => PARTNER_METRICS.map((m) => `coalesce(${alias}."${m}", 0) AS "${m}"`).join(', ');

/*
 * One round trip. Every enrollment of the program gets a row, with zeros when nothing happened;
 * since every event belongs to exactly one enrollment of its program, the rows add up to the
 * program report's totals.
 */
const PARTNERS_SQL = `
WITH ${windowSums('enrollment')}
SELECT e.partner_id AS "partnerId", p.name, e.ref_code AS "refCode", ${metricsOf('s')}
FROM partner_programs e
JOIN partners p ON p.id = e.partner_id
LEFT JOIN sums s ON s.enrollment = e.id
WHERE e.program_id = $1
ORDER BY "revenueCents" DESC, clicks DESC, "partnerId"
`;

/** Every partner of the program with its totals over the window, by revenue, then clicks, then partner id. */
export function partnerPerformance(sql: Sql, programId: number, w: Pick<PerformanceWindows, 'from' | 'to'>): Promise<PartnerTotals[]> {
  return sql.all<PartnerTotals>(PARTNERS_SQL, [programId, dayValue(w.from), dayValue(w.to), w.from, w.to]);
}

/** One partner's sums of one day of the window. */
export type PartnerDayRow = PartnerMetrics & { day: string };

/** One round trip: a row per UTC day of the window, oldest first, zeros included (a day spine). */
const PARTNER_DAYS_SQL = `
WITH ${windowSums('day')},
spine AS (SELECT CAST(d AS DATE) AS day FROM generate_series($2, $3, INTERVAL 1 DAY) AS r(d))
SELECT strftime(d.day, '%Y-%m-%d') AS day, ${metricsOf('s')}
FROM spine d LEFT JOIN sums s ON s.day = d.day
ORDER BY d.day
`;

/**
 * One enrollment's days over the window: the per-partner report's sums split by day instead of by
 * enrollment, so they add up exactly to the enrollment's row of that report.
 */
export function partnerDays(sql: Sql, programId: number, enrollmentId: number, w: Pick<PerformanceWindows, 'from' | 'to'>): Promise<PartnerDayRow[]> {
  return sql.all<PartnerDayRow>(PARTNER_DAYS_SQL, [programId, dayValue(w.from), dayValue(w.to), w.from, w.to, enrollmentId]);
}
