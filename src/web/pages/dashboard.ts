import './pages.css';
import type { PartnerReport, PerformanceReport, Trend } from '../../api/reports.js';
import type { PayoutPreview } from '../../api/payouts.js';
import type { Me } from '../../api/portal.js';
import { partnerReportCsv, performanceCsv } from '../../report-csv.js';
import { dailyChart, partialLastDay } from './chart.js';
import { csvButton, h, select, show, table } from './dom.js';
import { formatCount, formatDay, formatMoney, formatPercent, formatTrend } from './format.js';
import { moneySections } from './money.js';
import { periodFromUrl, periodPicker, periodToQuery, reportQuery, setQuery, type PeriodChoice } from './period.js';
import { start, type Shell } from './shell.js';
import { webhooksSection } from './webhooks.js';
import { codesSection, reviewSection } from './review.js';
import { groupsSection } from './groups.js';
import { applicationsSection } from './applications.js';

/** The merchant dashboard (docs/pages.md#the-dashboard): one program's numbers over a period. */

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
function currencyOf(preview: PayoutPreview): string {
  const currencies = new Set([...preview.payouts, ...preview.waiting].map((p) => p.currency));
  return currencies.size === 1 ? [...currencies][0] : 'USD';
}

start({ title: 'partnerkit dashboard', storageKey: 'partnerkit.dashboard.token', audience: 'member', signInCommand: 'partnerkit session create --email <your e-mail>' }, async (shell) => {
  const me = await shell.client.sessions.me();
  if (me.programs.length === 0) {
    show(shell.root, shell.header(), h('p', { class: 'notice' }, 'You are not a member of any program yet: an admin adds you with partnerkit member add.'));
    return;
  }
  const render = () => programPage(shell, me).catch((error) => shell.fail(error));
  window.addEventListener('popstate', render);
  await programPage(shell, me);
});

/**
 * The server's clock, from the time /api/me answered: holds are measured by it, and a browser's
 * clock may be off (docs/pages.md#get-apime).
 */
function serverNow(me: Me): () => Date {
  const skew = Date.parse(me.now) - Date.now();
  return () => new Date(Date.now() + skew);
}

function programIdFromUrl(me: Me): number {
  const wanted = Number(new URLSearchParams(location.search).get('program'));
  return me.programs.find((p) => p.id === wanted)?.id ?? me.programs[0].id;
}

async function programPage(shell: Shell, me: Me): Promise<void> {
  const programId = programIdFromUrl(me);
  const choice = periodFromUrl();
  const navigate = (values: Record<string, string | null>) => {
    setQuery(values);
    programPage(shell, me).catch((error) => shell.fail(error));
  };
  const program = me.programs.find((p) => p.id === programId)!;
  document.title = `${program.name} · partnerkit dashboard`;

  const kpis = h('section', { id: 'kpis', 'aria-label': 'Totals' }, h('p', { class: 'notice' }, 'Loading…'));
  const chart = h('section', { id: 'chart', 'aria-label': 'Daily chart' });
  const partners = h('section', { id: 'partners' });
  const applications = h('section', { id: 'applications' });
  const money = h('div', { id: 'money' });
  const webhooks = h('section', { id: 'webhooks' });
  const review = h('section', { id: 'review' });
  const codes = h('section', { id: 'codes' });
  const groups = h('section', { id: 'groups' });
  show(
    shell.root,
    shell.header(
      select('Program', me.programs.map((p) => ({ value: String(p.id), label: p.name })), String(programId), (id) => navigate({ program: id }), 'program'),
      h('span', { class: 'who' }, me.user?.email ?? 'admin'),
    ),
    h('nav', { class: 'controls', 'aria-label': 'Period' }, periodPicker(choice, (next: PeriodChoice) => navigate(periodToQuery(next)))),
    kpis,
    chart,
    partners,
    groups,
    codes,
    review,
    applications,
    money,
    webhooks,
  );

  const { client } = shell;
  const query = reportQuery(choice);
  const [report, byPartner, preview] = await Promise.all([client.reports.performance(programId, query), client.reports.partners(programId, query), client.payouts.preview(programId)]);
  const currency = currencyOf(preview);
  const names = new Map(byPartner.data.map((p) => [p.partnerId, p.name]));
  const span = `${report.meta.dateFrom.slice(0, 10)}-${report.meta.dateTo.slice(0, 10)}`;
  show(partners, leaderboard(byPartner, currency), csvButton('the partners report', () => `partners-program-${programId}-${span}.csv`, () => partnerReportCsv(byPartner)));
  moneySections(shell, money, programId, names, preview, serverNow(me));
  applicationsSection(shell, applications, programId);
  webhooksSection(shell, webhooks, programId);
  reviewSection(shell, review, programId);
  codesSection(shell, codes, programId, names);
  groupsSection(shell, groups, programId, names);

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

function leaderboard(report: PartnerReport, currency: string): HTMLElement {
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
      h('span', { class: 'partner' }, h('span', { class: 'name' }, p.name), h('small', {}, `#${p.partnerId} · ${p.refCode}`)),
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
