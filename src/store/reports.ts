import { utcDay } from '../days.js';
import { dayValue, type Sql, type StoreEngine } from './db.js';
import * as rollups from './rollups.js';
import { BY_ENROLLMENT, COUNTS, MONEY, PARTNER_COUNTS, PARTNER_MEASURES, PARTNER_MONEY, SOURCES, sumsOf, TOTALS, type Source } from './report-sources.js';

/**
 * What one day (or one whole window) of a program sums to. Money is integer cents as a bigint: the
 * sum of amounts the API accepts (each up to 2^53 − 1) can pass 2^53 (docs/reports.md#rounding).
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

const union = (select: (s: Source) => string) => SOURCES.map(select).join('\n  UNION ALL BY NAME\n  ');
/** The part of one day (the DATE parameter `day`) inside an instant range: the day column prunes. */
const edgeRow = (name: string, day: string, inRange: (at: string) => string) =>
  `SELECT '${name}', NULL, ${TOTALS} FROM (
  ${union((s) => `SELECT ${sumsOf(s)} FROM ${s.table} WHERE program_id = $1 AND ${s.day} = ${day} AND ${inRange(s.at)} AND ${s.where}`)}
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
  ${union((s) => `SELECT ${s.day} AS day, ${sumsOf(s)} FROM ${s.table} WHERE program_id = $1 AND ${s.day} BETWEEN $6 AND $7 AND ${s.where} GROUP BY 1`)}
),
spine AS (
  SELECT CAST(d AS DATE) AS day FROM generate_series($6, $7, INTERVAL 1 DAY) AS r(d)
)
SELECT NULL AS edge, strftime(s.day, '%Y-%m-%d') AS day, ${TOTALS}
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

type PerformanceSums = { days: PerformanceDayRow[]; current: PerformanceTotals; previous: PerformanceTotals };

/**
 * The current window's days (oldest first) and both windows' totals, from one query's day sums: on
 * DuckDB scanned from the events, on PostgreSQL read from the rollups (docs/rollups.md).
 */
export function performance(store: StoreEngine, sql: Sql, programId: number, w: PerformanceWindows): Promise<PerformanceSums> {
  return store.engine === 'postgres' ? performanceFromRollups(sql, programId, w) : performanceFromEvents(sql, programId, w);
}

async function performanceFromEvents(sql: Sql, programId: number, w: PerformanceWindows): Promise<PerformanceSums> {
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

/** The rollups' rows are exact per window: the previous window's totals, then the current window's days. */
async function performanceFromRollups(sql: Sql, programId: number, w: PerformanceWindows): Promise<PerformanceSums> {
  const [{ day: _, ...previous }, ...days] = await rollups.performanceRows<PerformanceDayRow>(sql, programId, w);
  const current = zero();
  for (const row of days) add(current, row);
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

/**
 * The partner sums are split either by enrollment (every partner of the program: the per-partner
 * report) or by stored day for one enrollment, the parameter $6 (a partner's own days: the partner
 * portal, docs/pages.md#get-apiportalprogramsprogramidperformance). Both are the same parts, so a partner's days add up to its row.
 */
type Split = 'enrollment' | 'day';

/** Each source summed per `split` where `inRange` holds, with a sign: the edges are subtracted. */
const signedParts = (split: Split, sign: 1 | -1, inRange: (s: Source) => string) =>
  BY_ENROLLMENT.map((s) => {
    const key = split === 'enrollment' ? `${s.enrollment} AS enrollment` : `${s.day} AS day`;
    const partner = split === 'day' ? `${s.enrollment} = $6 AND ` : '';
    return `SELECT ${sign} AS sign, ${key}, ${sumsOf(s)} FROM ${s.table} WHERE program_id = $1 AND ${partner}${inRange(s)} AND ${s.where} GROUP BY ALL`;
  }).join('\n  UNION ALL BY NAME\n  ');
const signedSum = (type: string) => (m: string) => `CAST(coalesce(sum(sign * "${m}"), 0) AS ${type}) AS "${m}"`;

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
const metricsOf = (alias: string) => PARTNER_MEASURES.map((m) => `coalesce(${alias}."${m}", 0) AS "${m}"`).join(', ');

/*
 * One round trip. Every enrollment of the program gets a row, with zeros when nothing happened;
 * since every event belongs to exactly one enrollment of its program, the rows add up to the
 * program report's totals.
 */
const partnersSql = (sums: string) => `
WITH ${sums}
SELECT e.partner_id AS "partnerId", p.name, e.ref_code AS "refCode", ${metricsOf('s')}
FROM partner_programs e
JOIN partners p ON p.id = e.partner_id
LEFT JOIN sums s ON s.enrollment = e.id
WHERE e.program_id = $1
ORDER BY "revenueCents" DESC, clicks DESC, "partnerId"
`;
const PARTNERS_SQL = { duckdb: partnersSql(windowSums('enrollment')), postgres: partnersSql(rollups.partnerSums('enrollment')) };

/** Every partner of the program with its totals over the window, by revenue, then clicks, then partner id. */
export function partnerPerformance(store: StoreEngine, sql: Sql, programId: number, w: Pick<PerformanceWindows, 'from' | 'to'>): Promise<PartnerTotals[]> {
  if (store.engine === 'postgres') return sql.all<PartnerTotals>(PARTNERS_SQL.postgres, rollups.partnerParams(programId, w));
  return sql.all<PartnerTotals>(PARTNERS_SQL.duckdb, [programId, dayValue(w.from), dayValue(w.to), w.from, w.to]);
}

/** One partner's sums of one day of the window. */
export type PartnerDayRow = PartnerMetrics & { day: string };

/** One round trip: a row per UTC day of the window, oldest first, zeros included (a day spine, and the day as text, in each dialect). */
const partnerDaysSql = (sums: string, spine: string, day: string) => `
WITH ${sums},
${spine}
SELECT ${day} AS day, ${metricsOf('s')}
FROM spine d LEFT JOIN sums s ON s.day = d.day
ORDER BY d.day
`;
const PARTNER_DAYS_SQL = {
  duckdb: partnerDaysSql(
    windowSums('day'),
    'spine AS (SELECT CAST(d AS DATE) AS day FROM generate_series($2, $3, INTERVAL 1 DAY) AS r(d))',
    "strftime(d.day, '%Y-%m-%d')",
  ),
  postgres: partnerDaysSql(rollups.partnerSums('day'), rollups.SPINE, "to_char(d.day, 'YYYY-MM-DD')"),
};

/**
 * One enrollment's days over the window: the per-partner report's sums split by day instead of by
 * enrollment, so they add up exactly to the enrollment's row of that report.
 */
export function partnerDays(
  store: StoreEngine,
  sql: Sql,
  programId: number,
  enrollmentId: number,
  w: Pick<PerformanceWindows, 'from' | 'to'>,
): Promise<PartnerDayRow[]> {
  if (store.engine === 'postgres') return sql.all<PartnerDayRow>(PARTNER_DAYS_SQL.postgres, rollups.partnerParams(programId, w, enrollmentId));
  return sql.all<PartnerDayRow>(PARTNER_DAYS_SQL.duckdb, [programId, dayValue(w.from), dayValue(w.to), w.from, w.to, enrollmentId]);
}
