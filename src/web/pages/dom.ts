import { formatCount } from './format.js';

/**
 * The one way the pages build DOM (docs/pages.md#safe-by-construction): text goes in as text nodes, never as
 * markup, so a partner named `<img src=x onerror=…>` is shown as those characters.
 */
export type Child = Node | string | number | null | undefined | false;
type Attribute = string | number | boolean | null | undefined | ((event: Event) => void);

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, Attribute> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined) element.setAttribute(name, String(value));
  }
  element.append(...nodes(children));
  return element;
}

function nodes(children: Child[]): Node[] {
  return children.filter((c): c is Node | string | number => c !== null && c !== undefined && c !== false).map((c) => (c instanceof Node ? c : document.createTextNode(String(c))));
}

/** Replaces what an element shows. */
export function show(parent: Element, ...children: Child[]): void {
  parent.replaceChildren(...nodes(children));
}

/**
 * A table with a caption, column headers (right-aligned when numeric) and rows; on a phone each row
 * is a card of label and value pairs (docs/pages.md#numbers-dates-and-layout). Without rows it is the caption and `empty`, a sentence saying what to do next
 * (docs/pages.md#empty-lists), in place of bare headers.
 */
export function table(caption: string, columns: { label: string; numeric?: boolean }[], rows: Child[][], empty: string, attributes: Record<string, Attribute> = {}): HTMLElement {
  if (rows.length === 0) {
    return h('div', { ...attributes, class: ['empty', attributes.class].filter(Boolean).join(' '), role: 'region', 'aria-label': caption }, h('p', { class: 'caption' }, caption), h('p', {}, empty));
  }
  const cls = (numeric?: boolean) => (numeric ? 'num' : undefined);
  // The roles keep a table a table for screen readers when a phone's width lays its rows out as cards.
  return h(
    'div',
    { class: 'scroll', tabindex: 0, role: 'region', 'aria-label': caption },
    h(
      'table',
      { ...attributes, role: 'table' },
      h('caption', {}, caption),
      h('thead', {}, h('tr', { role: 'row' }, ...columns.map((c) => h('th', { scope: 'col', role: 'columnheader', class: cls(c.numeric) }, c.label)))),
      h(
        'tbody',
        {},
        ...rows.map((row) => h('tr', { role: 'row' }, ...row.map((cell, i) => h('td', { role: 'cell', class: cls(columns[i]?.numeric), 'data-label': columns[i]?.label }, cell)))),
      ),
    ),
  );
}

/** A labelled <select>. */
export function select(label: string, options: { value: string; label: string }[], value: string, onChange: (value: string) => void, name: string): HTMLElement {
  const control = h('select', { id: name, name, onchange: (e) => onChange((e.target as HTMLSelectElement).value) }, ...options.map((o) => h('option', { value: o.value, selected: o.value === value }, o.label)));
  return h('label', { class: 'field', for: name }, h('span', {}, label), control);
}

/** A button that is disabled while its action runs and shows the action's error beside it. */
export function button(label: string, action: () => Promise<unknown>, attributes: Record<string, Attribute> = {}): HTMLButtonElement {
  const element: HTMLButtonElement = h('button', {
    type: 'button',
    ...attributes,
    onclick: async () => {
      element.disabled = true;
      try {
        await action();
      } finally {
        element.disabled = false;
      }
    },
  }, label);
  return element;
}

/** The rows a paged list shows at once (docs/pages.md#the-dashboard). */
export const PAGE_SIZE = 20;

/**
 * Under a paged list: "N of TOTAL" and Previous/Next buttons (labelled with the list's name, so a
 * keyboard or screen-reader user knows which list they move) that ask for the page at another offset.
 */
export function pager(name: string, offset: number, shown: number, total: number, go: (offset: number) => Promise<unknown>): HTMLElement {
  const range = shown === 0 ? '0' : `${formatCount(offset + 1)}–${formatCount(offset + shown)}`;
  const step = (label: string, to: number, enabled: boolean) =>
    button(label, () => go(to), { class: 'secondary', 'aria-label': `${label} ${PAGE_SIZE} ${name}`, disabled: !enabled });
  return h(
    'nav',
    { class: 'pager actions', 'aria-label': `${name} pages` },
    step('Previous', Math.max(0, offset - PAGE_SIZE), offset > 0),
    step('Next', offset + PAGE_SIZE, offset + shown < total),
    h('span', { class: 'count' }, `${range} of ${formatCount(total)}`),
  );
}

/**
 * Asks before a money action (docs/pages.md#money-actions-ask-first): a modal dialog saying what
 * will happen, with the action's button and Cancel; with `reason`, an optional text field whose
 * value is answered. Resolves null when dismissed (Cancel or Escape), and nothing is done.
 */
export function confirmAction(question: string, details: string, action: string, options: { reason?: boolean } = {}): Promise<{ reason: string } | null> {
  return new Promise((resolve) => {
    const reason = options.reason ? h('textarea', { id: 'confirm-reason', name: 'reason', rows: 2, maxlength: 1000 }) : null;
    const dialog = h(
      'dialog',
      { class: 'confirm', 'aria-labelledby': 'confirm-question' },
      h(
        'form',
        { method: 'dialog' },
        h('h2', { id: 'confirm-question' }, question),
        h('p', {}, details),
        reason && h('label', { class: 'field', for: 'confirm-reason' }, h('span', {}, 'Reason (optional, kept with the commission)'), reason),
        h('p', { class: 'actions' }, h('button', { type: 'submit', value: 'confirm' }, action), h('button', { type: 'submit', value: 'cancel', class: 'secondary' }, 'Cancel')),
      ),
    );
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(dialog.returnValue === 'confirm' ? { reason: reason?.value.trim() ?? '' } : null);
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/** Saves text as a file the browser downloads (a CSV a page built or the API answered). */
export function saveFile(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A button that downloads the CSV `build` makes (docs/pages.md#csv-downloads); `what` names the list for its label. */
export function csvButton(what: string, name: () => string, build: () => Promise<string> | string): HTMLButtonElement {
  return button('Download CSV', async () => saveFile(name(), `${await build()}\n`), { class: 'secondary', 'aria-label': `Download CSV of ${what}` });
}
