import './pages.css';
import type { PortalMe, PortalPayouts, PortalPerformance } from '../../api/portal.js';
import { dailyChart, partialLastDay } from './chart.js';
import { button, h, PAGE_SIZE, pager, show, table } from './dom.js';
import { formatCount, formatDay, formatInstant, formatMoney } from './format.js';
import { periodFromUrl, periodPicker, periodToQuery, reportQuery, setQuery } from './period.js';
import { start, type Shell } from './shell.js';

/**
 * The partner portal (docs/pages.md#the-partner-portal): a partner's own programs, its links, its numbers
 * per day, its commissions and payouts, all from the partner-scoped API.
 */
start({ title: 'partnerkit partner portal', storageKey: 'partnerkit.portal.token', audience: 'partner', signInCommand: 'partnerkit partner login --partner <id>' }, async (shell) => {
  const me = await shell.client.portal.me();
  const render = () => portalPage(shell, me).catch((error) => shell.fail(error));
  window.addEventListener('popstate', render);
  await portalPage(shell, me);
});

async function portalPage(shell: Shell, me: PortalMe): Promise<void> {
  const choice = periodFromUrl();
  document.title = `${me.partner.name} · partnerkit partner portal`;
  const sections = me.programs.map(() => h('section', { class: 'program' }, h('p', { class: 'notice' }, 'Loading…')));
  show(
    shell.root,
    shell.header(h('span', { class: 'who' }, `${me.partner.name} (${me.partner.email})`)),
    h('nav', { class: 'controls', 'aria-label': 'Period' }, periodPicker(choice, (next) => {
      setQuery(periodToQuery(next));
      portalPage(shell, me).catch((error) => shell.fail(error));
    })),
    me.programs.length === 0 ? h('p', { class: 'notice' }, 'You take part in no program yet.') : '',
    ...sections,
  );
  const query = reportQuery(choice);
  await Promise.all(
    me.programs.map(async (program, i) => {
      const commissions = h('div', { class: 'commission-pages' });
      const [performance, payouts] = await Promise.all([
        shell.client.portal.performance(program.programId, query),
        shell.client.portal.payouts(program.programId),
        commissionPage(shell, program.programId, commissions, 0),
      ]);
      show(sections[i], ...programSection(program, performance, commissions, payouts));
    }),
  );
}

/** Shows a page of the partner's commissions, by id, in `where`, with the pager to the others. */
async function commissionPage(shell: Shell, programId: number, where: HTMLElement, offset: number): Promise<void> {
  const { data, total } = await shell.client.portal.commissionsPage(programId, { limit: PAGE_SIZE, offset });
  show(
    where,
    table(
      `Commissions: ${formatCount(data.length)} of ${formatCount(total)}`,
      [{ label: 'Id', numeric: true }, { label: 'Sale', numeric: true }, { label: 'Type' }, { label: 'Amount', numeric: true }, { label: 'Status' }, { label: 'Created' }, { label: 'Hold until' }, { label: 'Paid' }],
      data.map((c) => [c.id, c.saleId, c.type, formatMoney(c.amount, c.currency), c.status, formatInstant(c.createdAt), formatInstant(c.holdUntil), formatInstant(c.paidAt)]),
      'No commissions yet: each sale a customer you referred makes earns one. Share your link above.',
      { class: 'commissions' },
    ),
    pager('commissions', offset, data.length, total, (to) => commissionPage(shell, programId, where, to).catch((error) => shell.fail(error, where))),
  );
}

function programSection(program: PortalMe['programs'][number], performance: PortalPerformance, commissions: HTMLElement, payouts: PortalPayouts) {
  const currency = performance.meta.currency ?? 'USD';
  const money = (value: number) => formatMoney(value, currency);
  const { totals, daily } = performance.data;
  const status = h('p', { role: 'status', class: 'notice' });
  const link = (label: string, url: string | null, missing: string) =>
    h(
      'div',
      { class: 'link' },
      h('strong', {}, label),
      url === null ? h('span', { class: 'notice' }, missing) : h('code', {}, url),
      url === null
        ? ''
        : button('Copy', async () => {
            await navigator.clipboard.writeText(url);
            show(status, `${label} copied.`);
          }, { class: 'secondary', 'aria-label': `Copy ${label.toLowerCase()}` }),
    );
  return [
    h('h2', {}, program.name, program.status === 'active' ? '' : ' (inactive)'),
    link('Partner link', program.link, ''),
    link('Link without redirect (?via=)', program.viaLink, 'The program has not set its landing page yet.'),
    status,
    h('h3', {}, `${formatDay(performance.meta.from)} – ${formatDay(performance.meta.to)}`),
    h(
      'div',
      { class: 'kpis' },
      ...(
        [['Clicks', formatCount(totals.clicks)], ['Leads', formatCount(totals.leads)], ['Conversions', formatCount(totals.conversions)], ['Sales', formatCount(totals.sales)], ['Revenue', money(totals.revenue)], ['Commission', money(totals.commission)]] as const
      ).map(([label, value]) => h('article', { class: 'kpi', 'data-metric': label.toLowerCase() }, h('h3', {}, label), h('p', { class: 'value' }, value))),
    ),
    dailyChart(
      daily.map((d) => d.date),
      [
        { label: 'Clicks', values: daily.map((d) => d.clicks), color: '#2563eb', format: formatCount },
        { label: 'Leads', values: daily.map((d) => d.leads), color: '#7c3aed', format: formatCount },
        { label: 'Conversions', values: daily.map((d) => d.conversions), color: '#059669', format: formatCount },
        { label: 'Commission', values: daily.map((d) => d.commission), money: true, color: '#dc2626', format: money },
      ],
      'Per day',
      partialLastDay(performance.meta.period, daily.at(-1)?.date),
    ),
    commissions,
    table(
      `Payouts (${formatCount(payouts.data.length)})`,
      [{ label: 'Id', numeric: true }, { label: 'Amount', numeric: true }, { label: 'Commissions', numeric: true }, { label: 'Status' }, { label: 'Created' }, { label: 'Paid' }],
      payouts.data.map((p) => [p.id, formatMoney(p.amount, p.currency), formatCount(p.commissionCount), p.status, formatInstant(p.createdAt), formatInstant(p.paidAt)]),
      'No payouts yet: approved commissions are paid out together once they reach the minimum payout.',
      { class: 'payouts' },
    ),
  ];
}
