import { PERIODS, DEFAULT_PERIOD } from '../../api/constants.js';
import type { PerformanceQuery } from '../../api/reports.js';
import { h } from './dom.js';

/**
 * The period the page shows, kept in the URL's query (docs/pages.md#the-dashboard): `period=30d`, or
 * `from=2026-03-01&to=2026-03-07` for custom dates, so a reload or a shared link shows the same numbers.
 */
export type PeriodChoice = { period: (typeof PERIODS)[number] } | { from: string; to: string };

export function periodFromUrl(): PeriodChoice {
  const query = new URLSearchParams(location.search);
  const from = query.get('from');
  const to = query.get('to');
  if (from && to) return { from, to };
  const period = query.get('period');
  return { period: PERIODS.find((p) => p === period) ?? DEFAULT_PERIOD };
}

/** The report query of a choice: the API reads the period or the dates, nothing computed here. */
export function reportQuery(choice: PeriodChoice): PerformanceQuery {
  return 'period' in choice ? { period: choice.period } : { dateFrom: choice.from, dateTo: choice.to };
}

/** Sets query parameters (null removes one) and adds the URL to the history. */
export function setQuery(values: Record<string, string | null>): void {
  const query = new URLSearchParams(location.search);
  for (const [name, value] of Object.entries(values)) {
    if (value === null) query.delete(name);
    else query.set(name, value);
  }
  history.pushState(null, '', `${location.pathname}?${query}`);
}

export function periodToQuery(choice: PeriodChoice): Record<string, string | null> {
  return 'period' in choice ? { period: choice.period, from: null, to: null } : { period: null, from: choice.from, to: choice.to };
}

const LABELS: Record<string, string> = { '7d': 'Last 7 days', '30d': 'Last 30 days', '90d': 'Last 90 days', all: 'All time', custom: 'Custom dates' };

/** The period selector: a select of the periods and custom dates, with an Apply button for the dates. */
export function periodPicker(choice: PeriodChoice, onChange: (choice: PeriodChoice) => void): HTMLElement {
  const current = 'period' in choice ? choice.period : 'custom';
  const from = h('input', { type: 'date', id: 'period-from', value: 'from' in choice ? choice.from : '', required: true });
  const to = h('input', { type: 'date', id: 'period-to', value: 'to' in choice ? choice.to : '', required: true });
  const custom = h(
    'form',
    { class: 'custom', hidden: current !== 'custom', onsubmit: (e) => {
      e.preventDefault();
      if (from.value && to.value) onChange({ from: from.value, to: to.value });
    } },
    h('label', { for: 'period-from' }, 'From ', from),
    h('label', { for: 'period-to' }, 'To ', to),
    h('button', { type: 'submit' }, 'Apply'),
  );
  const periods = h(
    'select',
    { id: 'period', name: 'period', onchange: () => {
      if (periods.value === 'custom') {
        custom.hidden = false;
        from.focus();
      } else onChange({ period: periods.value as (typeof PERIODS)[number] });
    } },
    ...[...PERIODS, 'custom'].map((p) => h('option', { value: p, selected: p === current }, LABELS[p])),
  );
  return h('div', { class: 'period' }, h('label', { class: 'field', for: 'period' }, h('span', {}, 'Period'), periods), custom);
}
