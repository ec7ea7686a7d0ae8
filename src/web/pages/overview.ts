import type { PartnerReport, PerformanceReport, Trend } from '../../api/reports.js';
import type { PayoutPreview } from '../../api/payouts.js';
import { partnerReportCsv, performanceCsv } from '../../report-csv.js';
import { dailyChart, partialLastDay } from './chart.js';
import { csvButton, h, show, table } from './dom.js';
import { formatCount, formatDay, formatMoney, formatPercent, formatTrend } from './format.js';
import { link, type View } from './nav.js';
import { reportQuery } from './period.js';

/** The Overview section (docs/pages.md#overview): the totals with their trends, the daily chart and the partners leaderboard. */

type Metric = keyof PerformanceReport['metrics'];
type Kind = 'count' | 'money' | 'percent';
/** Every total of the report, with its trend where the report has one. */
const KPIS: { label: string; metric: Metric; trend?: Metric; kind: Kind }[] = [
  { label: 'Clicks', metric: 'totalClicks', trend: 'clicksTrend', kind: 'count' },
  { label: 'Leads', metric: 'totalLeads', trend: 'leadsTrend', kind: 'count' },
  { label: 'Conversions', metric: 'totalConversions', trend: 'conversionsTrend', kind: 'count' },
  { label: 'Sales', metric: 'totalSales', trend: 'salesTrend', kind: 'count' },
  { label: 'Revenue', metric: 'totalRevenue', trend: 'revenueTrend', kind: 'money' },
  { label: 'Commission', metric: 'totalPartnersCommission', trend: 'commissionTrend', kind: 'money' },
  { label: 'Refunded', metric: 'totalRefunded', trend: 'refundedTrend', kind: 'money' },
  { label: 'New partners', metric: 'totalPartners', trend: 'partnersTrend', kind: 'count' },
  { label: 'Conversion rate', metric: 'conversionRate', kind: 'percent' },
  { label: 'Average order value', metric: 'averageOrderValue', kind: 'money' },
];

/**
 * The currency report amounts are shown in: the one the program's balances are kept in, else USD,
 * the sale endpoint's default. The report adds amounts as sent, without conversion.
 */
export function currencyOf(preview: PayoutPreview): string {
  const currencies = new Set([...preview.payouts, ...preview.waiting].map((p) => p.currency));
  return currencies.size === 1 ? [...currencies][0] : 'USD';
}

/** The report's currency for the view: the program's balances' (docs/pages.md#every-number-from-the-api). */
export async function reportCurrency(view: View): Promise<string> {
  return currencyOf(await view.shell.client.payouts.preview(view.programId));
}

export async function overview(view: View, into: HTMLElement): Promise<void> {
  const { client } = view.shell;
  const { programId } = view;
  const kpis = h('section', { id: 'kpis', 'aria-label': 'Totals' }, h('p', { class: 'notice' }, 'Loading…'));
  const chart = h('section', { id: 'chart', 'aria-label': 'Daily chart' });
  const partners = h('section', { id: 'partners-leaderboard', 'aria-label': 'Partners leaderboard' });
  show(into, kpis, chart, partners);

  const query = reportQuery(view.choice);
  const [report, byPartner, currency] = await Promise.all([client.reports.performance(programId, query), client.reports.partners(programId, query), reportCurrency(view)]);
  const span = `${report.meta.dateFrom.slice(0, 10)}-${report.meta.dateTo.slice(0, 10)}`;
  show(partners, leaderboard(view, byPartner, currency), csvButton('the partners report', () => `partners-program-${programId}-${span}.csv`, () => partnerReportCsv(byPartner)));

  // The previous period (its totals tell a trend from nothing, its rows are the faint lines): the
  // same report over the window the API named.
  const previous = await client.reports.performance(programId, { dateFrom: report.meta.previousPeriod.dateFrom, dateTo: report.meta.previousPeriod.dateTo });
  show(
    kpis,
    h('h2', {}, periodHeading(report)),
    h('div', { class: 'kpis' }, ...KPIS.map((k) => kpiCard(k, report, previous, currency))),
    h('p', { class: 'actions' }, csvButton('the daily report', () => `performance-program-${programId}-${span}.csv`, () => performanceCsv(report))),
  );
  const rows = report.data;
  const asMoney = (v: number) => formatMoney(v, currency);
  show(
    chart,
    dailyChart(
      rows.map((r) => r.date),
      [
        { label: 'Clicks', values: rows.map((r) => r.clicks), previous: previous.data.map((r) => r.clicks), color: '#2563eb', format: formatCount },
        { label: 'Leads', values: rows.map((r) => r.leads), previous: previous.data.map((r) => r.leads), color: '#7c3aed', format: formatCount },
        { label: 'Conversions', values: rows.map((r) => r.conversions), previous: previous.data.map((r) => r.conversions), color: '#059669', format: formatCount },
        { label: 'Revenue', values: rows.map((r) => r.revenue), previous: previous.data.map((r) => r.revenue), money: true, color: '#d97706', format: asMoney },
        { label: 'Commission', values: rows.map((r) => r.commission), previous: previous.data.map((r) => r.commission), money: true, color: '#dc2626', format: asMoney },
      ],
      'Per day, with the previous period as a dashed line',
      partialLastDay(report.meta.period, rows.at(-1)?.date),
    ),
  );
}

function periodHeading(report: PerformanceReport): string {
  const { dateFrom, dateTo } = report.meta;
  return `${formatDay(dateFrom)} – ${formatDay(dateTo)}`;
}

function kpiCard(kpi: (typeof KPIS)[number], report: PerformanceReport, previous: PerformanceReport, currency: string): HTMLElement {
  const value = report.metrics[kpi.metric] as number;
  const text = kpi.kind === 'money' ? formatMoney(value, currency) : kpi.kind === 'percent' ? formatPercent(value) : formatCount(value);
  const trend = kpi.trend ? formatTrend(report.metrics[kpi.trend] as Trend, previous.metrics[kpi.metric] as number) : undefined;
  return h(
    'article',
    { class: 'kpi', 'data-metric': kpi.metric },
    h('h3', {}, kpi.label),
    h('p', { class: 'value' }, text),
    trend
      ? h('p', { class: `trend ${(report.metrics[kpi.trend!] as Trend).trendDirection}`, 'aria-label': trend.label }, [trend.arrow, trend.text].filter(Boolean).join(' '))
      : h('p', { class: 'trend' }, ' '),
  );
}

function leaderboard(view: View, report: PartnerReport, currency: string): HTMLElement {
  return table(
    'Partners, by revenue',
    [
      { label: '#', numeric: true },
      { label: 'Partner' },
      { label: 'Clicks', numeric: true },
      { label: 'Leads', numeric: true },
      { label: 'Conversions', numeric: true },
      { label: 'Sales', numeric: true },
      { label: 'Revenue', numeric: true },
      { label: 'Commission', numeric: true },
      { label: 'Conversion rate', numeric: true },
    ],
    report.data.map((p, i) => [
      i + 1,
      h('span', { class: 'partner' }, link(view, view.href(`partners/${p.partnerId}`), h('span', { class: 'name' }, p.name)), h('small', {}, `#${p.partnerId} · ${p.refCode}`)),
      formatCount(p.clicks),
      formatCount(p.leads),
      formatCount(p.conversions),
      formatCount(p.sales),
      formatMoney(p.revenue, currency),
      formatMoney(p.commission, currency),
      formatPercent(p.conversionRate),
    ]),
    'No partners yet: enroll partners in the program and share their links.',
    { id: 'leaderboard' },
  );
}
