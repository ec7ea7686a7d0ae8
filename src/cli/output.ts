import Table from 'cli-table3';
import { centsText } from '../money.js';

const COUNT = new Intl.NumberFormat('en-US');
const MONEY = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A count as tables show it, with thousands separators: 17,935. */
export const formatCount = (n: number): string => COUNT.format(n);

/** An amount in dollars as tables show it, with thousands separators and two decimals: 11,231,798.00. */
export const formatMoney = (dollars: number): string => MONEY.format(dollars);

/** A file's size for people: 512 B, 1.4 kB, 152.3 MB (powers of 1,000). */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  const power = Math.min(units.length - 1, Math.floor(Math.log10(Math.max(bytes, 1)) / 3));
  return power === 0 ? `${bytes} B` : `${(bytes / 1000 ** power).toFixed(1)} ${units[power]}`;
}

/** Integer cents as tables show them, exact at any size, with thousands separators: -1234567 → -12,345.67. */
export function formatCents(cents: number | bigint): string {
  const [units, decimals] = centsText(cents).split('.');
  return `${units.replace(/\B(?=(\d{3})+$)/g, ',')}.${decimals}`;
}

export type Column<T> = { header: string; value: (row: T) => unknown; align?: 'left' | 'right' };

/** A cli-table3 table; cells wrap so wide tables still fit an 80-column terminal. `compact` drops the lines between rows. */
export function renderTable<T>(columns: Column<T>[], rows: T[], options: { colWidths?: number[]; compact?: boolean } = {}): string {
  const table = new Table({
    head: columns.map((c) => c.header),
    colAligns: columns.map((c) => c.align ?? 'left'),
    wordWrap: true,
    style: { head: [], border: [], compact: options.compact ?? false },
    ...(options.colWidths ? { colWidths: options.colWidths } : {}),
  });
  for (const row of rows) table.push(columns.map((c) => formatCell(c.value(row))));
  return table.toString();
}

/**
 * A long id shortened to `max` characters with its start and end kept (`evt_1NG8Du…I1ABCDE`): the
 * prefix tells the kind, the end is what a person compares.
 */
export function truncateMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.ceil((max - 1) / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (max - 1 - head))}`;
}

/** Key/value lines for one object. */
export function renderObject(value: Record<string, unknown>): string {
  const width = Math.max(...Object.keys(value).map((k) => k.length));
  return Object.entries(value)
    .map(([k, v]) => `${k.padEnd(width)}  ${formatCell(v)}`)
    .join('\n');
}

function formatCell(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
