import type { Trend } from '../../api/reports.js';

/**
 * Numbers as the browser's locale writes them (docs/pages.md#numbers-dates-and-layout). Money is shown with its
 * currency; the API's amounts are dollars (reports) or integer cents (commissions and payouts).
 */
const counts = new Intl.NumberFormat();
const percents = new Intl.NumberFormat(undefined, { style: 'percent', minimumFractionDigits: 0, maximumFractionDigits: 2 });
const moneyFormats = new Map<string, Intl.NumberFormat>();
const dates = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const instants = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const shortDays = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

export const formatCount = (value: number) => counts.format(value);
/** A percentage as the API gives it (12.5 for 12.5 %). */
export const formatPercent = (value: number) => percents.format(value / 100);

export function formatMoney(amount: number, currency: string): string {
  let format = moneyFormats.get(currency);
  if (!format) moneyFormats.set(currency, (format = new Intl.NumberFormat(undefined, { style: 'currency', currency })));
  return format.format(amount);
}

/** Integer cents in a currency. Amounts past 2^53 cents are the API's nearest double already. */
export const formatCents = (cents: number, currency: string) => formatMoney(cents / 100, currency);

/** A `YYYY-MM-DD` report day or an instant's UTC day. */
export const formatDay = (day: string) => dates.format(new Date(day.length === 10 ? `${day}T00:00:00Z` : day));
/** A UTC day from its seconds since the epoch, short (a chart's tick). */
export const formatShortDay = (seconds: number) => shortDays.format(new Date(seconds * 1000));
export const formatInstant = (iso: string | null) => (iso === null ? '—' : instants.format(new Date(iso)));

const ARROWS = { up: '▲', down: '▼', stable: '■' } as const;

/**
 * A trend as the report states it: the arrow of its direction and the percentage; "new" when the
 * previous period had none (docs/pages.md#the-dashboard), where a percentage would mean nothing.
 */
export function formatTrend(trend: Trend, previous: number): { arrow: string; text: string; label: string } {
  if (previous === 0 && trend.trendDirection === 'up') return { arrow: '', text: 'new', label: 'new: none in the previous period' };
  const text = formatPercent(trend.trend);
  return { arrow: ARROWS[trend.trendDirection], text, label: `${trend.trendDirection} ${text} on the previous period` };
}
