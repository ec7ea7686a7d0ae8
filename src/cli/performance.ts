import { Flags } from '@oclif/core';
import { DEFAULT_PERIOD, PERIODS, type Period } from '../api/constants.js';
import type { PartnerReport, PartnerReportRow, PerformanceDay, PerformanceQuery, PerformanceReport, Trend } from '../api/index.js';
import { csvNumber, csvRecord } from '../csv.js';
import { formatCount as count, formatMoney as money, renderTable, type Column } from './output.js';
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

/** A window as dates when it is whole UTC days, else as instants. */
function span(from: string, to: string): string {
  const wholeDays = from.endsWith('T00:00:00.000Z') && to.endsWith('T23:59:59.999Z');
  return wholeDays ? `${from.slice(0, 10)} – ${to.slice(0, 10)}` : `${from} – ${to}`;
}

// Two-line headers keep eight columns of a 10-million-click demo inside 100 columns; `period`
// repeats `date` (docs/behaviour.md §5.4), so the table shows it once (the CSV and JSON keep both).
// The marked columns are explained under the table (docs/behaviour.md §9.7).
const dayColumns: Column<PerformanceDay>[] = [
  { header: 'Date', value: (d) => d.date },
  { header: 'Clicks', value: (d) => count(d.clicks), align: 'right' },
  { header: 'Leads', value: (d) => count(d.leads), align: 'right' },
  { header: 'Conv-\nersions', value: (d) => count(d.conversions), align: 'right' },
  { header: 'Revenue', value: (d) => money(d.revenue), align: 'right' },
  { header: 'Part-\nners¹', value: (d) => count(d.partners), align: 'right' },
  { header: 'Sales²', value: (d) => count(d.sales), align: 'right' },
  { header: 'Commis-\nsion', value: (d) => money(d.commission), align: 'right' },
];

const DAY_NOTES = [
  '¹ Partners who joined the program that day (new enrollments).',
  '² Always 0: the report counts paid sales for the whole period only (Totals).',
];
const TOTAL_NOTES = ["³ Revenue per conversion (a customer's first purchase), not per sale."];

type TotalRow = { metric: string; value: string; trend?: Trend };

/** The report as text: a heading with the period's dates, one row per day, then totals with trends. */
export function renderPerformance(programId: number, report: PerformanceReport): string {
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
    { metric: 'Average order value³', value: money(m.averageOrderValue) },
  ];
  return [
    `Program ${programId} performance, ${meta.period}: ${span(meta.dateFrom, meta.dateTo)} (UTC)`,
    `Compared with ${span(meta.previousPeriod.dateFrom, meta.previousPeriod.dateTo)}`,
    renderTable(dayColumns, report.data, { compact: true }),
    ...DAY_NOTES,
    'Totals',
    renderTable<TotalRow>(
      [
        { header: 'Metric', value: (t) => t.metric },
        { header: 'Total', value: (t) => t.value, align: 'right' },
        { header: 'vs previous', value: (t) => (t.trend ? trendText(t.trend) : ''), align: 'right' },
      ],
      totals,
      { compact: true },
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

/** The widest the partner column may grow before names wrap, so the table stays within 100 columns. */
const PARTNER_COLUMN_MAX = 16;

// The name, then the id and the referral code on lines of their own: they never wrap.
const partnerCell = (r: PartnerReportRow) => `${r.name}\nid ${r.partnerId}\n${r.refCode}`;

const partnerColumns: Column<PartnerReportRow>[] = [
  { header: 'Partner\nid, ref code', value: partnerCell },
  { header: 'Clicks', value: (r) => count(r.clicks), align: 'right' },
  { header: 'Leads', value: (r) => count(r.leads), align: 'right' },
  { header: 'Conv-\nersions', value: (r) => count(r.conversions), align: 'right' },
  { header: 'Sales', value: (r) => count(r.sales), align: 'right' },
  { header: 'Revenue', value: (r) => money(r.revenue), align: 'right' },
  { header: 'Commis-\nsion', value: (r) => money(r.commission), align: 'right' },
  { header: 'Conv.\nrate', value: (r) => `${r.conversionRate.toFixed(2)}%`, align: 'right' },
];

/**
 * The per-partner report as text: a heading with the period, one row per partner (the first
 * `shown` of `total`), at most 100 columns wide for a 10-million-click demo: the name and the
 * partner's id and referral code share a column that wraps long names.
 */
export function renderPartnerReport(programId: number, report: PartnerReport, total = report.data.length): string {
  const { meta } = report;
  const widest = Math.max(...report.data.flatMap((r) => partnerCell(r).split('\n').map((line) => line.length)), 'id, ref code'.length);
  const lines = [`Program ${programId} partners, ${meta.period}: ${span(meta.dateFrom, meta.dateTo)} (UTC), by revenue`];
  if (report.data.length === 0) return [...lines, 'No partners.'].join('\n');
  lines.push(renderTable(partnerColumns, report.data, { colWidths: [Math.min(widest, PARTNER_COLUMN_MAX) + 2] }));
  if (total > report.data.length) lines.push(`… ${count(total - report.data.length)} more (--limit)`);
  return lines.join('\n');
}

const PARTNER_CSV_FIELDS = ['partnerId', 'name', 'refCode', 'clicks', 'leads', 'conversions', 'sales', 'revenue', 'commission', 'conversionRate'] as const;

/** A header line and one line per partner; money and the rate with two decimals. */
export function partnerReportCsv(report: PartnerReport): string {
  const cell = (r: PartnerReportRow, field: (typeof PARTNER_CSV_FIELDS)[number]) => {
    const value = r[field];
    return field === 'revenue' || field === 'commission' || field === 'conversionRate' ? csvNumber((value as number).toFixed(2)) : value;
  };
  return [PARTNER_CSV_FIELDS.join(','), ...report.data.map((r) => csvRecord(PARTNER_CSV_FIELDS.map((f) => cell(r, f))))].join('\n');
}
