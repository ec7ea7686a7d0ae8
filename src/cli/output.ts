import Table from 'cli-table3';
import type { CommissionTerms } from '../api/index.js';
import { clockFromEnv } from '../clock.js';
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

/** The width every table fits (docs/cli.md#tables-and-numbers): a terminal's default. */
export const TABLE_WIDTH = 80;

/**
 * A column: `shrink` columns (names, reasons, event types) give up width when the table would be
 * wider than {@link TABLE_WIDTH}, cut at the end (`Northwind Traders…`) or in the middle (`checkout.s…succeeded`).
 */
export type Column<T> = { header: string; value: (row: T) => unknown; align?: 'left' | 'right'; shrink?: 'end' | 'middle' };

/** Columns two spaces apart, the header underlined: no borders, so eight columns still fit 80. */
const CHARS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', mid: '─', 'mid-mid': '  ', right: '', 'right-mid': '', middle: '  ',
};
const GAP = CHARS.middle.length;
/** The narrowest a shrinking column becomes: a name still reads as one. */
const MIN_SHRUNK = 8;

function table(columns: Column<unknown>[], cells: string[][], colWidths: number[]): InstanceType<typeof Table> {
  const t = new Table({
    head: columns.map((c) => c.header),
    colAligns: columns.map((c) => c.align ?? 'left'),
    colWidths,
    chars: CHARS,
    style: { head: [], border: [], compact: true, 'padding-left': 0, 'padding-right': 0 },
  });
  t.push(...cells);
  return t;
}

/**
 * Rows as a table of one line each within {@link TABLE_WIDTH} columns, or `empty` (what to do
 * next) when there are none. Each column is as wide as its widest cell; when they add up to more,
 * the `shrink` columns give up width, the widest first, and their cells are cut with `…`.
 */
export function renderTable<T>(columns: Column<T>[], rows: T[], options: { empty: string }): string {
  if (rows.length === 0) return options.empty;
  const cells = rows.map((row) => columns.map((c) => formatCell(c.value(row))));
  const natural = table(columns as Column<unknown>[], cells, []);
  natural.toString();
  // cli-table3 writes the widths it measured (display width, wide characters counted twice) into its colWidths.
  const widths = [...(natural.options.colWidths as number[])];
  const floor = columns.map((c, i) => (c.shrink ? Math.min(widths[i], Math.max(MIN_SHRUNK, ...c.header.split('\n').map((l) => l.length))) : widths[i]));
  let excess = widths.reduce((a, b) => a + b, GAP * (columns.length - 1)) - TABLE_WIDTH;
  while (excess > 0) {
    const widest = widths.reduce((best, w, i) => (w > floor[i] && (best < 0 || w > widths[best]) ? i : best), -1);
    if (widest < 0) break;
    widths[widest] -= 1;
    excess -= 1;
  }
  const fitted = cells.map((row) => row.map((text, i) => (columns[i].shrink === 'middle' ? text.split('\n').map((l) => truncateMiddle(l, widths[i])).join('\n') : text)));
  // A left-aligned last column pads its lines with spaces nobody sees; they would only wrap a narrow terminal.
  return table(columns as Column<unknown>[], fitted, widths).toString().replace(/ +$/gm, '');
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number) => String(n).padStart(2, '0');

/**
 * An instant as tables show it, in the terminal's time zone: `Nov 26 14:05` in the year of `now`
 * (the command's clock), else the date alone, `2025-11-26`. Never more than 12 characters.
 */
export function formatWhen(iso: string, now: Date): string {
  const at = new Date(iso);
  if (at.getFullYear() !== now.getFullYear()) return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())}`;
  return `${MONTHS[at.getMonth()]} ${at.getDate()} ${two(at.getHours())}:${two(at.getMinutes())}`;
}

/** A commission rule in words: `20 %`, `5.00 per sale` (a flat amount in the sale's currency). */
export function commissionText(terms: CommissionTerms): string {
  return terms.type === 'percent' ? `${terms.percent} %` : `${formatCents(terms.flatCents)} per sale`;
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

/** An instant as the API writes it (`2026-11-26T14:05:00.000Z`): what {@link renderObject} shows with formatWhen. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/**
 * Key/value lines for one object; instants in the terminal's time zone, short, as tables show them
 * (`now`: the command's clock, which decides whether the year is shown).
 */
export function renderObject(value: Record<string, unknown>, now: Date = clockFromEnv().now()): string {
  const width = Math.max(...Object.keys(value).map((k) => k.length));
  return Object.entries(value)
    .map(([k, v]) => `${k.padEnd(width)}  ${typeof v === 'string' && ISO_INSTANT.test(v) ? formatWhen(v, now) : formatCell(v)}`)
    .join('\n');
}

/** A value in a cell: `—` for none, a list comma-separated, never JSON. */
function formatCell(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (Array.isArray(value)) return value.length === 0 ? '—' : value.map(formatCell).join(', ');
  if (typeof value === 'object') return Object.entries(value).map(([k, v]) => `${k} ${formatCell(v)}`).join(', ');
  return String(value);
}
