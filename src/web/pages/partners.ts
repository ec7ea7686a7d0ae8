import type { ProgramPartner } from '../../api/payouts.js';
import { applicationsSection } from './applications.js';
import { h, show, table } from './dom.js';
import { formatCents, formatCount, formatInstant, formatMoney, formatPercent } from './format.js';
import { commissionsPanel } from './money.js';
import { link, type Panel, type View } from './nav.js';
import { reportCurrency } from './overview.js';
import { reportQuery } from './period.js';
import { groupsSection } from './groups.js';
import { codesSection } from './review.js';

/**
 * The Partners section (docs/pages.md#partners): the search, then the program's applications and
 * promotion codes. A panel added here (the groups) is drawn under them, in this order.
 */
export const PARTNER_PANELS: Panel[] = [
  { id: 'partners', render: partnerSearch },
  { id: 'applications', render: (view, into) => applicationsSection(view.shell, into, view.programId) },
  { id: 'codes', render: async (view, into) => codesSection(view.shell, into, view.programId, await view.names()) },
  { id: 'groups', render: async (view, into) => groupsSection(view.shell, into, view.programId, await view.names()) },
];

/** The program's partners, or those whose name or e-mail holds the URL's `q` (the API searches), each a link to its page. */
async function partnerSearch(view: View, into: HTMLElement): Promise<void> {
  const q = new URLSearchParams(location.search).get('q')?.trim() ?? '';
  const input = h('input', { type: 'search', id: 'partner-search', name: 'q', value: q, maxlength: 255, autocomplete: 'off' });
  const list = h('div', { id: 'partner-results' }, h('p', { class: 'notice' }, 'Loading…'));
  show(
    into,
    h('h2', {}, 'Partners'),
    h(
      'form',
      {
        role: 'search',
        class: 'actions',
        onsubmit: (e) => {
          e.preventDefault();
          const wanted = input.value.trim();
          view.go(view.href('partners', wanted ? { q: wanted } : {}));
        },
      },
      h('label', { class: 'field', for: 'partner-search' }, h('span', {}, 'Name or e-mail'), input),
      h('button', { type: 'submit' }, 'Search'),
    ),
    list,
  );
  const partners = await view.shell.client.programPartners.list(view.programId, q ? { q } : {});
  show(
    list,
    table(
      q ? `Partners whose name or e-mail contains “${q}”` : 'Partners',
      [{ label: 'Partner' }, { label: 'Referral code' }, { label: 'Status' }, { label: 'Enrolled' }],
      partners.map((p) => [partnerCell(view, p), p.refCode, p.status, formatInstant(p.enrolledAt)]),
      q ? `No partner’s name or e-mail contains “${q}”. Search for part of a name or an address.` : 'No partners yet: enroll partners with partnerkit partner enroll, or approve applications below.',
      { id: 'partner-list' },
    ),
  );
}

function partnerCell(view: View, p: ProgramPartner): HTMLElement {
  return h('span', { class: 'partner' }, link(view, view.href(`partners/${p.partnerId}`), h('span', { class: 'name' }, p.name)), h('small', {}, `#${p.partnerId} · ${p.email}`));
}

/**
 * A partner's page (docs/pages.md#a-partners-page): its links, its numbers for the period, its
 * commissions and payouts, and its history as the program keeps it.
 */
export async function partnerPage(view: View, into: HTMLElement, partnerId: number): Promise<void> {
  const { client } = view.shell;
  const { programId } = view;
  const back = h('p', {}, link(view, view.href('partners'), '← All partners'));
  show(into, back, h('p', { class: 'notice' }, 'Loading…'));
  const partner = Number.isInteger(partnerId) ? (await client.programPartners.list(programId)).find((p) => p.partnerId === partnerId) : undefined;
  if (!partner) {
    show(into, back, h('p', { class: 'notice', role: 'status' }, `No partner ${Number.isInteger(partnerId) ? partnerId : ''} is enrolled in this program.`));
    return;
  }
  const [links, report, currency, codes, payouts] = await Promise.all([
    client.programPartners.links(programId, partnerId),
    client.reports.partners(programId, reportQuery(view.choice)),
    reportCurrency(view),
    client.codes.list(programId, partnerId),
    client.payouts.list(programId).then((list) => list.filter((p) => p.partnerId === partnerId)),
  ]);
  const row = report.data.find((r) => r.partnerId === partnerId);
  const numbers: Array<[string, string]> = row
    ? ([
        ['Clicks', formatCount(row.clicks)], ['Leads', formatCount(row.leads)], ['Conversions', formatCount(row.conversions)], ['Sales', formatCount(row.sales)],
        ['Revenue', formatMoney(row.revenue, currency)], ['Commission', formatMoney(row.commission, currency)], ['Conversion rate', formatPercent(row.conversionRate)],
      ] as Array<[string, string]>)
    : [];
  const commissions = h('section', { id: 'partner-commissions' });
  const history: Array<[string, string]> = [
    [partner.enrolledAt, `Enrolled with referral code ${partner.refCode}`] as [string, string],
    ...codes.map((c): [string, string] => [c.createdAt, `Promotion code ${c.code} added`]),
    ...payouts.flatMap((p): Array<[string, string]> => [
      [p.createdAt, `Payout ${p.id} of ${formatCents(p.amountCents, p.currency)} created (batch ${p.batchId})`],
      ...(p.paidAt ? [[p.paidAt, `Payout ${p.id} marked paid`] as [string, string]] : []),
    ]),
  ].sort(([a], [b]) => b.localeCompare(a));
  const partnerLink = new URL(links.linkPath, location.origin).href;
  show(
    into,
    back,
    h('h2', { id: 'partner-name' }, partner.name),
    h('p', { class: 'notice' }, `#${partner.partnerId} · ${partner.email} · ${partner.status === 'active' ? 'active' : 'inactive: its links and attribution are stopped'} · payout method: ${partner.payoutMethod ?? 'not set'}`),
    h(
      'section',
      { id: 'partner-links', 'aria-label': 'Links' },
      h('h3', {}, 'Links'),
      h('p', { class: 'link' }, 'Partner link ', h('code', {}, partnerLink)),
      links.viaUrl
        ? h('p', { class: 'link' }, 'Landing page link ', h('code', {}, links.viaUrl))
        : h('p', { class: 'notice' }, 'No landing page yet: set the program’s landing URL in Settings for a ?via= link.'),
    ),
    h(
      'section',
      { id: 'partner-numbers', 'aria-label': 'Numbers for the period' },
      h('h3', {}, 'This period'),
      numbers.length > 0
        ? h('div', { class: 'kpis' }, ...numbers.map(([label, value]) => h('article', { class: 'kpi' }, h('h4', {}, label), h('p', { class: 'value' }, value))))
        : h('p', { class: 'notice' }, 'No activity in this period: choose a longer period, or share the partner link.'),
    ),
    commissions,
    h(
      'section',
      { id: 'partner-payouts' },
      table(
        'Payouts',
        [{ label: 'Id', numeric: true }, { label: 'Amount', numeric: true }, { label: 'Status' }, { label: 'Created' }, { label: 'Paid' }],
        payouts.map((p) => [p.id, formatCents(p.amountCents, p.currency), p.status, formatInstant(p.createdAt), formatInstant(p.paidAt)]),
        'No payouts yet: approved commissions are paid from the Payouts section.',
      ),
    ),
    h(
      'section',
      { id: 'partner-history' },
      table('History', [{ label: 'When' }, { label: 'What' }], history.map(([at, what]) => [formatInstant(at), what]), ''),
    ),
  );
  document.title = `${partner.name} · ${document.title}`;
  await commissionsPanel(view, commissions, partnerId);
}
