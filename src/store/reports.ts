import { epochDay, MS_PER_DAY, utcDay } from '../days.js';
import type { Sql } from './db.js';
import * as rollups from './rollups.js';
import { COUNTS, MONEY, PARTNER_MEASURES } from './report-sources.js';

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

const zero = (): PerformanceTotals =>
  Object.fromEntries([...COUNTS.map((m) => [m, 0]), ...MONEY.map((m) => [m, 0n])]) as PerformanceTotals;

function add(into: PerformanceTotals, row: PerformanceTotals): void {
  for (const m of COUNTS) into[m] += row[m];
  for (const m of MONEY) into[m] += row[m];
}

type PerformanceSums = { days: PerformanceDayRow[]; current: PerformanceTotals; previous: PerformanceTotals };

/**
 * The current window's days (oldest first, zeros included) and both windows' totals, read from the
 * rollups and the events of the partial hours at the windows' edges (docs/rollups.md#how-reports-read-them).
 */
export async function performance(sql: Sql, programId: number, w: PerformanceWindows): Promise<PerformanceSums> {
  const rows = new Map((await rollups.performanceRows<PerformanceTotals & { day: string | null }>(sql, programId, w)).map(({ day, ...sums }) => [day, sums]));
  const days: PerformanceDayRow[] = [];
  for (let d = epochDay(w.from.getTime()); d <= epochDay(w.to.getTime()); d++) {
    const day = utcDay(new Date(d * MS_PER_DAY));
    days.push({ day, ...(rows.get(day) ?? zero()) });
  }
  const current = zero();
  for (const row of days) add(current, row);
  return { days, current, previous: rows.get(null) ?? zero() };
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

const metricsOf = (alias: string) => PARTNER_MEASURES.map((m) => `coalesce(${alias}."${m}", 0) AS "${m}"`).join(', ');

/*
 * One round trip. Every enrollment of the program gets a row, with zeros when nothing happened;
 * since every event belongs to exactly one enrollment of its program, the rows add up to the
 * program report's totals.
 */
const partnersSql = (ctes: string) => `
WITH ${ctes}
SELECT e.partner_id AS "partnerId", p.name, e.ref_code AS "refCode", ${metricsOf('s')}
FROM partner_programs e
JOIN partners p ON p.id = e.partner_id
LEFT JOIN sums s ON s.enrollment = e.id
WHERE e.program_id = $1
ORDER BY "revenueCents" DESC, clicks DESC, "partnerId"
`;

/** Every partner of the program with its totals over the window, by revenue, then clicks, then partner id. */
export function partnerPerformance(sql: Sql, programId: number, w: Pick<PerformanceWindows, 'from' | 'to'>): Promise<PartnerTotals[]> {
  return rollups.partnerRows<PartnerTotals>(sql, partnersSql, programId, w);
}

/** One partner's sums of one day of the window. */
export type PartnerDayRow = PartnerMetrics & { day: string };

/** One round trip: a row per UTC day of the window, oldest first, zeros included. */
const partnerDaysSql = (ctes: string) => `
WITH ${ctes}
SELECT CAST(d.day AS VARCHAR) AS day, ${metricsOf('s')}
FROM spine d LEFT JOIN sums s ON s.day = d.day
ORDER BY d.day
`;

/**
 * One enrollment's days over the window: the per-partner report's sums split by day instead of by
 * enrollment, so they add up exactly to the enrollment's row of that report.
 */
export function partnerDays(sql: Sql, programId: number, enrollmentId: number, w: Pick<PerformanceWindows, 'from' | 'to'>): Promise<PartnerDayRow[]> {
  return rollups.partnerRows<PartnerDayRow>(sql, partnerDaysSql, programId, w, enrollmentId);
}
