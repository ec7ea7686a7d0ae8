import { utc } from '@date-fns/utc';
import { addDays } from 'date-fns/addDays';
import { differenceInCalendarDays } from 'date-fns/differenceInCalendarDays';
import { endOfDay } from 'date-fns/endOfDay';
import { startOfDay } from 'date-fns/startOfDay';
import { DEFAULT_PERIOD, type PartnerReport, type Period, type PerformanceQuery, type PerformanceReport, type Trend } from '../api/index.js';
import { invalidRequest } from '../errors.js';
import { boundInstant } from '../days.js';
import type { Sql } from '../store/db.js';
import type { ProgramRow } from '../store/programs.js';
import * as reports from '../store/reports.js';
import { codeSalesByPartner } from '../store/promotion-codes.js';
import type { PerformanceTotals } from '../store/reports.js';
import type { Deps } from './deps.js';
import { viewedProgram, type Viewer } from './access.js';

/** A custom range may span at most this many days, so one request cannot ask for millions of rows. */
export const MAX_RANGE_DAYS = 3660;

/** The current and the comparison window of a report (docs/reports.md#periods-and-windows), both inclusive. */
export type ReportWindow = { period: Period | 'custom'; from: Date; to: Date; previousFrom: Date; previousTo: Date };

const abs = (x: bigint) => (x < 0n ? -x : x);

/**
 * numerator / denominator rounded half away from zero to `decimals` places, computed in integers
 * so that no float error can tip a half, then read as a number from its exact decimal text: the
 * double nearest to the rounded value, exact while it has at most 15–16 significant digits
 * (docs/reports.md#rounding).
 */
export function roundedRatio(numerator: number | bigint, denominator: number | bigint, decimals: number): number {
  const n = BigInt(numerator);
  const d = BigInt(denominator);
  if (d === 0n) throw new RangeError('division by zero');
  const units = (2n * abs(n) * 10n ** BigInt(decimals) + abs(d)) / (2n * abs(d));
  const digits = units.toString().padStart(decimals + 1, '0');
  const sign = units !== 0n && (n < 0n) !== (d < 0n) ? '-' : '';
  return Number(`${sign}${digits.slice(0, digits.length - decimals)}.${digits.slice(digits.length - decimals)}`);
}

/** Dollars from integer cents, rounded to the cent. */
export function dollars(cents: bigint): number {
  return roundedRatio(cents, 100n, 2);
}

/** The change versus the previous period (docs/reports.md#trends); counts or cents. */
export function trend(current: number | bigint, previous: number | bigint): Trend {
  const [now, before] = [BigInt(current), BigInt(previous)];
  if (before === 0n) return now > 0n ? { trend: 100, trendDirection: 'up' } : { trend: 0, trendDirection: 'stable' };
  const direction = now > before ? 'up' : now < before ? 'down' : 'stable';
  return { trend: roundedRatio(abs(now - before) * 100n, before, 1), trendDirection: direction };
}

export type Range = { period: Period } | { period: 'custom'; from: Date; to: Date };

/** Validates the query (400 invalid_request) before anything is looked up: a period, or a custom range. */
export function requestedRange(query: PerformanceQuery): Range {
  if (query.dateFrom === undefined && query.dateTo === undefined) return { period: query.period ?? DEFAULT_PERIOD };
  if (query.dateFrom === undefined || query.dateTo === undefined) {
    const missing = query.dateFrom === undefined ? 'dateFrom' : 'dateTo';
    throw invalidRequest([{ field: missing, message: 'dateFrom and dateTo must be given together' }]);
  }
  const from = boundInstant(query.dateFrom, false);
  const to = boundInstant(query.dateTo, true);
  if (from > to) throw invalidRequest([{ field: 'dateFrom', message: 'dateFrom is after dateTo' }]);
  if (differenceInCalendarDays(to, from, { in: utc }) >= MAX_RANGE_DAYS) {
    throw invalidRequest([{ field: 'dateTo', message: `a custom range spans at most ${MAX_RANGE_DAYS} days` }]);
  }
  return { period: 'custom', from, to };
}

/**
 * The report's windows: the N calendar days ending today, everything since the program's creation
 * day, or the custom range; the previous window has the same length and ends 1 ms before the current.
 */
export function reportWindow(range: Range, now: Date, programCreatedAt: Date): ReportWindow {
  let from: Date;
  let to: Date;
  if (range.period === 'custom') {
    ({ from, to } = range);
  } else {
    to = endOfDay(now, { in: utc });
    const firstDay = range.period === 'all' ? programCreatedAt : addDays(now, 1 - Number.parseInt(range.period, 10), { in: utc });
    from = startOfDay(firstDay, { in: utc });
  }
  const previousTo = new Date(from.getTime() - 1);
  const previousFrom = new Date(previousTo.getTime() - (to.getTime() - from.getTime()));
  return { period: range.period, from, to, previousFrom, previousTo };
}

/** The response body from the per-day sums of the current window and the totals of both windows. */
export function buildReport(window: ReportWindow, days: reports.PerformanceDayRow[], current: PerformanceTotals, previous: PerformanceTotals): PerformanceReport {
  return {
    data: days.map((d) => ({
      date: d.day,
      period: d.day,
      clicks: d.clicks,
      leads: d.leads,
      conversions: d.conversions,
      revenue: dollars(d.revenueCents),
      partners: d.partners,
      sales: 0, // docs/reports.md#day-rows: the daily sales field is always 0; paid sales are counted in metrics.totalSales
      commission: dollars(d.commissionCents),
    })),
    metrics: {
      totalClicks: current.clicks,
      totalLeads: current.leadStatus,
      totalConversions: current.conversions,
      totalRevenue: dollars(current.revenueCents),
      conversionRate: conversionRate(current.conversions, current.clicks),
      averageOrderValue: current.conversions === 0 ? 0 : roundedRatio(current.revenueCents, current.conversions * 100, 2),
      totalPartners: current.partners,
      totalSales: current.sales,
      totalPartnersCommission: dollars(current.commissionCents),
      totalRefunded: dollars(current.refundedCents),
      clicksTrend: trend(current.clicks, previous.clicks),
      leadsTrend: trend(current.leadStatus, previous.leadStatus),
      conversionsTrend: trend(current.conversions, previous.conversions),
      revenueTrend: trend(current.revenueCents, previous.revenueCents),
      partnersTrend: trend(current.partners, previous.partners),
      salesTrend: trend(current.sales, previous.sales),
      commissionTrend: trend(current.commissionCents, previous.commissionCents),
      refundedTrend: trend(current.refundedCents, previous.refundedCents),
    },
    meta: {
      period: window.period,
      dateFrom: window.from.toISOString(),
      dateTo: window.to.toISOString(),
      previousPeriod: { dateFrom: window.previousFrom.toISOString(), dateTo: window.previousTo.toISOString() },
    },
  };
}

/** The conversion rate of a count of clicks: conversions × 100 ÷ clicks, 2 decimals, 0 without clicks (docs/reports.md#totals). */
function conversionRate(conversions: number, clicks: number): number {
  return clicks === 0 ? 0 : roundedRatio(conversions * 100, clicks, 2);
}

/**
 * A program's report after authentication and validation: the query (400), then `program` (the
 * program the caller may see: 404, 403), then `build` over the report's windows, on one reader.
 */
export function programReport<T>(
  { store, clock }: Deps,
  query: PerformanceQuery,
  program: (sql: Sql) => Promise<ProgramRow>,
  build: (sql: Sql, window: ReportWindow) => Promise<T>,
): Promise<T> {
  const range = requestedRange(query);
  return store.read(async (sql) => build(sql, reportWindow(range, clock.now(), (await program(sql)).created_at)));
}

/** GET /api/tracking/performance/:programId after authentication and validation: 404, 403, then the report. */
export function performanceReport(deps: Deps, viewer: Viewer, programId: number, query: PerformanceQuery): Promise<PerformanceReport> {
  return programReport(deps, query, (sql) => viewedProgram(deps.store, sql, viewer, programId), async (sql, window) => {
    const { days, current, previous } = await reports.performance(sql, programId, window);
    return buildReport(window, days, current, previous);
  });
}

/** A partner's sums as the API writes them (docs/reports.md#per-partner-report): counts as stored, `leads` the lead status, money in dollars. */
export function partnerMetrics<T extends reports.PartnerMetrics>({ leadStatus, revenueCents, commissionCents, ...rest }: T) {
  return { ...rest, leads: leadStatus, revenue: dollars(revenueCents), commission: dollars(commissionCents) };
}

/**
 * The per-partner report's body from its rows and the sales codes attributed, by partner
 * (docs/reports.md#per-partner-report, docs/promotion-codes.md#in-the-per-partner-report).
 */
export function buildPartnerReport(window: ReportWindow, rows: reports.PartnerTotals[], codeSales: Map<number, number>): PartnerReport {
  return {
    data: rows.map((row) => ({
      ...partnerMetrics(row),
      codeSales: codeSales.get(row.partnerId) ?? 0,
      conversionRate: conversionRate(row.conversions, row.clicks),
    })),
    meta: { period: window.period, dateFrom: window.from.toISOString(), dateTo: window.to.toISOString() },
  };
}

/** GET /api/tracking/performance/:programId/partners: the program report's credential, periods and errors, a row per partner. */
export function partnerReport(deps: Deps, viewer: Viewer, programId: number, query: PerformanceQuery): Promise<PartnerReport> {
  return programReport(deps, query, (sql) => viewedProgram(deps.store, sql, viewer, programId), async (sql, window) =>
    buildPartnerReport(window, await reports.partnerPerformance(sql, programId, window), await codeSalesByPartner(sql, programId, window.from, window.to)),
  );
}
