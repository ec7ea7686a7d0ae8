import type { Me } from '../../api/portal.js';
import { h, type Child } from './dom.js';
import type { PeriodChoice } from './period.js';
import type { Shell } from './shell.js';

/**
 * What a dashboard section is drawn with (docs/pages.md#sections-and-their-urls): the session, the
 * program and period of the URL, the server's clock, the partners' names and a way to move to another
 * URL of the dashboard without a reload.
 */
export type View = {
  shell: Shell;
  me: Me;
  programId: number;
  choice: PeriodChoice;
  /** The server's clock (docs/pages.md#get-apime): holds are measured by it. */
  now: () => Date;
  /** The program's partners' names by id, asked once per view. */
  names: () => Promise<Map<number, string>>;
  /** A dashboard URL: `/dashboard/<path>` with the program and period of this one, and `query` besides. */
  href: (path: string, query?: Record<string, string>) => string;
  /** Goes to a dashboard URL, added to the history, and draws it. */
  go: (href: string) => void;
};

/** A section of the dashboard: its URL's path, its name in the navigation, and how it draws itself. */
export type Section = {
  path: string;
  label: string;
  /** Whether its numbers depend on the period: only then does it show the period picker (the period stays in the URL either way). */
  period?: boolean;
  /** Draws the section into `into`; `rest` is the path after the section's (a partner's id). */
  render: (view: View, into: HTMLElement, rest: string[]) => Promise<void>;
};

/** A part of a section: one heading and what it lists; a section draws its panels in order. */
export type Panel = { id: string; render: (view: View, into: HTMLElement) => void | Promise<void> };

/** Draws each panel of a list into a section element of its own id, in order. */
export function panels(view: View, list: readonly Panel[]): HTMLElement[] {
  return list.map((panel) => {
    const section = h('section', { id: panel.id });
    void Promise.resolve(panel.render(view, section)).catch((error) => view.shell.fail(error, section));
    return section;
  });
}

/** A link to a dashboard URL that moves there without a reload (a click with a modifier opens a tab as usual). */
export function link(view: View, href: string, ...children: Child[]): HTMLAnchorElement {
  return h('a', {
    href,
    onclick: (event) => {
      const e = event as MouseEvent;
      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      view.go(href);
    },
  }, ...children);
}
