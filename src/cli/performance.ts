import { Flags } from '@oclif/core';
import { DEFAULT_PERIOD, PERIODS, type Period } from '../api/constants.js';
import type { PartnerReport, PartnerReportRow, PerformanceDay, PerformanceQuery, PerformanceReport, Trend } from '../api/index.js';
import { csvNumber, csvRecord } from '../csv.js';
import { formatCount as count, formatMoney as money, formatWhen, renderTable, type Column } from './output.js';
import { sessionTokenFlag } from './base.js';

/** The flags both report commands take: the report endpoints' query, the output, and the credential. */
export const reportFlags = {
  period: Flags.string({ description: 'the N days ending today, or everything since the program was created', options: [...PERIODS], default: DEFAULT_PERIOD }),
  from: Flags.string({ description: 'start of a custom range: a date (whole UTC day) or an ISO 8601 date-time', dependsOn: ['to'] }),
  to: Flags.string({ description: 'end of a custom range: a date (whole UTC day) or an ISO 8601 date-time', dependsOn: ['from'] }),
  'session-token': sessionTokenFlag,
};

/** The endpoints' query from the flags: a custom range when given, else the period. */
export function reportQuery(flags: { period: string; from?: string; to?: string }): PerformanceQuery {
  return flags.from === undefined ? { period: flags.period as Period } : { dateFrom: flags.from, dateTo: flags.to };
}

const ARROWS: Record<Trend['trendDirection'], string> = { up: '▲', down: '▼', stable: '■' };

const trendText = (t: Trend) => `${ARROWS[t.trendDirection]} ${t.trend.toFixed(1)}%`;

/** A window as its UTC days when it is whole UTC days (the report's days), else as instants in local time. */
function span(from: string, to: string, now: Date): string {
  const wholeDays = from.endsWith('T00:00:00.000Z') && to.endsWith('T23:59:59.999Z');
  return wholeDays ? `${from.slice(0, 10)} – ${to.slice(0, 10)} (UTC days)` : `${formatWhen(from, now)} – ${formatWhen(to, now)}`;
}

// `period` repeats `date` and the daily `sales` is always 0 (docs/reports.md#day-rows): the table
// leaves both out (the CSV and JSON keep them; paid sales are in the totals). The marked column
// is explained under the table (docs/cli.md#tables-and-numbers).
const dayColumns: Column<PerformanceDay>[] = [
  { header: 'Date', value: (d) => d.date },
  { header: 'Clicks', value: (d) => count(d.clicks), align: 'right' },
  { header: 'Leads', value: (d) => count(d.leads), align: 'right' },
  { header: 'Conversions', value: (d) => count(d.conversions), align: 'right' },
  { header: 'Revenue', value: (d) => money(d.revenue), align: 'right' },
  { header: 'Partners¹', value: (d) => count(d.partners), align: 'right' },
  { header: 'Commission', value: (d) => money(d.commission), align: 'right' },
];

const DAY_NOTES = ['¹ Partners who joined the program that day (new enrollments).'];
const TOTAL_NOTES = ["² Revenue per conversion (a customer's first purchase), not per sale."];

type TotalRow = { metric: string; value: string; trend?: Trend };

/** The report as text: a heading with the period's dates, one row per day, then totals with trends. */
export function renderPerformance(programId: number, report: PerformanceReport, now: Date): string {
  const { meta, metrics: m } = report;
  const totals: TotalRow[] = [
    { metric: 'Clicks', value: count(m.totalClicks), trend: m.clicksTrend },
    { metric: 'Leads (status lead)', value: count(m.totalLeads), trend: m.leadsTrend },
    { metric: 'Conversions', value: count(m.totalConversions), trend: m.conversionsTrend },
    { metric: 'Revenue', value: money(m.totalRevenue), trend: m.revenueTrend },
    { metric: 'Partners joined¹', value: count(m.totalPartners), trend: m.partnersTrend },
    { metric: 'Sales (paid)', value: count(m.totalSales), trend: m.salesTrend },
    { metric: 'Commission', value: money(m.totalPartnersCommission), trend: m.commissionTrend },
    { metric: 'Refunded', value: money(m.totalRefunded), trend: m.refundedTrend },
    { metric: 'Conversion rate', value: `${m.conversionRate.toFixed(2)}%` },
    { metric: 'Average order value²', value: money(m.averageOrderValue) },
  ];
  return [
    `Program ${programId} performance, ${meta.period}: ${span(meta.dateFrom, meta.dateTo, now)}`,
    `Compared with ${span(meta.previousPeriod.dateFrom, meta.previousPeriod.dateTo, now)}`,
    renderTable(dayColumns, report.data, { empty: 'No days in this period.' }),
    ...DAY_NOTES,
    'Totals',
    renderTable<TotalRow>(
      [
        { header: 'Metric', value: (t) => t.metric },
        { header: 'Total', value: (t) => t.value, align: 'right' },
        { header: 'vs previous', value: (t) => (t.trend ? trendText(t.trend) : ''), align: 'right' },
      ],
      totals,
      { empty: '' },
    ),
    ...TOTAL_NOTES,
  ].join('\n');
}

const CSV_FIELDS = ['date', 'period', 'clicks', 'leads', 'conversions', 'revenue', 'partners', 'sales', 'commission'] as const;

/** A header line and one line per day; money with two decimals. */
export function performanceCsv(report: PerformanceReport): string {
  const lines = report.data.map((d) =>
    csvRecord(CSV_FIELDS.map((field) => (field === 'revenue' || field === 'commission' ? csvNumber(d[field].toFixed(2)) : d[field]))),
  );
  return [CSV_FIELDS.join(','), ...lines].join('\n');
}

// One line a partner: the id and name (cut short when long); the referral code is in --csv and --json.
const partnerColumns: Column<PartnerReportRow>[] = [
  { header: 'Partner', value: (r) => `#${r.partnerId} ${r.name}`, shrink: 'end' },
  { header: 'Clicks', value: (r) => count(r.clicks), align: 'right' },
  { header: 'Leads', value: (r) => count(r.leads), align: 'right' },
  { header: 'Conv.', value: (r) => count(r.conversions), align: 'right' },
  { header: 'Revenue', value: (r) => money(r.revenue), align: 'right' },
  { header: 'Commission', value: (r) => money(r.commission), align: 'right' },
  { header: 'Conv. rate', value: (r) => `${r.conversionRate.toFixed(2)}%`, align: 'right' },
];

/**
 * The per-partner report as text: a heading with the period, one line per partner (the first
 * `shown` of `total`), or what to do when the program has none.
 */
export function renderPartnerReport(programId: number, report: PartnerReport, now: Date, enroll: string, total = report.data.length): string {
  const { meta } = report;
  const lines = [`Program ${programId} partners, ${meta.period}: ${span(meta.dateFrom, meta.dateTo, now)}, by revenue`];
  lines.push(renderTable(partnerColumns, report.data, { empty: `No partners in program ${programId} yet. Enroll one with: ${enroll}` }));
  if (total > report.data.length) lines.push(`… ${count(total - report.data.length)} more (--limit)`);
  return lines.join('\n');
}

const PARTNER_CSV_FIELDS = ['partnerId', 'name', 'refCode', 'clicks', 'leads', 'conversions', 'sales', 'codeSales', 'revenue', 'commission', 'conversionRate'] as const;

/** A header line and one line per partner; money and the rate with two decimals. */
export function partnerReportCsv(report: PartnerReport): string {
  const cell = (r: PartnerReportRow, field: (typeof PARTNER_CSV_FIELDS)[number]) => {
    const value = r[field];
    return field === 'revenue' || field === 'commission' || field === 'conversionRate' ? csvNumber((value as number).toFixed(2)) : value;
  };
  return [PARTNER_CSV_FIELDS.join(','), ...report.data.map((r) => csvRecord(PARTNER_CSV_FIELDS.map((f) => cell(r, f))))].join('\n');
}
