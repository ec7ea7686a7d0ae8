import './pages.css';
import type { Me } from '../../api/portal.js';
import { h, select, show } from './dom.js';
import { commissionsPanel, payoutsPanel } from './money.js';
import { link, panels, type Panel, type Section, type View } from './nav.js';
import { overview } from './overview.js';
import { partnerPage, PARTNER_PANELS } from './partners.js';
import { periodFromUrl, periodPicker, periodToQuery, setQuery, type PeriodChoice } from './period.js';
import { reviewSection } from './review.js';
import { SETTINGS_PANELS } from './settings.js';
import { start, type Shell } from './shell.js';
import { webhooksSection } from './webhooks.js';

/**
 * The merchant dashboard (docs/pages.md#the-dashboard): one program's sections, each at its own URL,
 * `/dashboard/<section>?program=<id>&period=…` (docs/pages.md#sections-and-their-urls).
 */

/** Commissions: the list with its review, then the commissions fraud rules hold. */
const COMMISSION_PANELS: Panel[] = [
  { id: 'commissions', render: (view, into) => commissionsPanel(view, into) },
  { id: 'review', render: (view, into) => reviewSection(view.shell, into, view.programId) },
];

/** A section drawn as its panels, under its heading. */
const ofPanels = (list: readonly Panel[]): Section['render'] => async (view, into) => show(into, ...panels(view, list));

/**
 * The sections, in the navigation's order. A section is one entry here; a part of a section (the
 * Groups of Partners, a preview under Commissions) is one entry in that section's panel list.
 */
export const SECTIONS: readonly Section[] = [
  { path: 'overview', label: 'Overview', period: true, render: overview },
  { path: 'partners', label: 'Partners', period: true, render: async (view, into, rest) => (rest[0] ? partnerPage(view, into, Number(rest[0])) : show(into, ...panels(view, PARTNER_PANELS))) },
  { path: 'commissions', label: 'Commissions', render: ofPanels(COMMISSION_PANELS) },
  { path: 'payouts', label: 'Payouts', render: ofPanels([{ id: 'payouts', render: (view, into) => payoutsPanel(view, into) }]) },
  { path: 'webhooks', label: 'Webhooks', render: ofPanels([{ id: 'webhooks', render: (view, into) => webhooksSection(view.shell, into, view.programId) }]) },
  { path: 'settings', label: 'Settings', render: ofPanels(SETTINGS_PANELS) },
];

/** The query a section link keeps: the program and the period; a section's own (a search) stays behind. */
const KEPT = ['program', 'period', 'from', 'to'];

start({ title: 'partnerkit dashboard', storageKey: 'partnerkit.dashboard.token', audience: 'member', signInCommand: 'partnerkit session create --email <your e-mail>' }, async (shell) => {
  const me = await shell.client.sessions.me();
  if (me.programs.length === 0) {
    show(shell.root, shell.header(), h('p', { class: 'notice' }, 'You are not a member of any program yet: an admin adds you with partnerkit member add.'));
    return;
  }
  const now = serverNow(me);
  const draw = (focus: boolean) => route(shell, me, now, draw, focus).catch((error) => shell.fail(error));
  window.addEventListener('popstate', () => draw(false));
  await route(shell, me, now, draw, false);
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

/** The section of the URL and the path after it: `/dashboard/partners/7` is Partners with ['7']; `/dashboard` and unknown paths are the Overview. */
function sectionFromUrl(): { section: Section; rest: string[] } {
  const [, name, ...rest] = location.pathname.split('/').filter(Boolean);
  const section = SECTIONS.find((s) => s.path === name);
  return section ? { section, rest } : { section: SECTIONS[0], rest: [] };
}

/** Draws the page of the URL: the header, the navigation, the period and the section. */
async function route(shell: Shell, me: Me, now: () => Date, draw: (focus: boolean) => void, focus: boolean): Promise<void> {
  const programId = programIdFromUrl(me);
  const choice = periodFromUrl();
  const { section, rest } = sectionFromUrl();
  const kept = new URLSearchParams([...new URLSearchParams(location.search)].filter(([name]) => KEPT.includes(name)));
  let names: Promise<Map<number, string>> | undefined;
  const view: View = {
    shell, me, programId, choice, now,
    names: () => (names ??= shell.client.programPartners.list(programId).then((list) => new Map(list.map((p) => [p.partnerId, p.name])))),
    href: (path, query = {}) => {
      const search = new URLSearchParams(kept);
      for (const [name, value] of Object.entries(query)) search.set(name, value);
      return `/dashboard/${path}${search.size > 0 ? `?${search}` : ''}`;
    },
    go: (href) => {
      history.pushState(null, '', href);
      draw(true);
    },
  };
  const navigate = (values: Record<string, string | null>) => {
    setQuery(values);
    draw(false);
  };
  const program = me.programs.find((p) => p.id === programId)!;
  document.title = `${section.label} · ${program.name} · partnerkit dashboard`;
  const body = h('div', { id: `section-${section.path}`, class: 'section', role: 'region', 'aria-label': section.label, tabindex: -1 });
  show(
    shell.root,
    shell.header(
      select('Program', me.programs.map((p) => ({ value: String(p.id), label: p.name })), String(programId), (id) => navigate({ program: id }), 'program'),
      h('span', { class: 'who' }, me.user?.email ?? 'admin'),
    ),
    h(
      'nav',
      { class: 'sections', 'aria-label': 'Sections' },
      h('ul', {}, ...SECTIONS.map((s) => h('li', {}, link(view, view.href(s.path), s.label)))),
    ),
    section.period && h('nav', { class: 'controls', 'aria-label': 'Period' }, periodPicker(choice, (next: PeriodChoice) => navigate(periodToQuery(next)))),
    body,
  );
  for (const a of shell.root.querySelectorAll<HTMLAnchorElement>('nav.sections a')) {
    if (a.pathname === `/dashboard/${section.path}`) a.setAttribute('aria-current', 'page');
  }
  // After a move by a link, the keyboard and the screen reader continue at the section, as after a page load.
  if (focus) body.focus();
  await section.render(view, body, rest);
}
