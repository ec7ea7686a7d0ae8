/**
 * CSV records written in JavaScript: the payout files and the CLI's `--csv` output. The data
 * exports, which DuckDB writes, follow the same rule in SQL (`csvText` in src/store/exports.ts).
 * Both are described in docs/exports.md#csv-cells-a-spreadsheet-would-run.
 */

/** A number, or the exact decimal text of one (money with two decimals): written as it is. */
export type CsvNumber = { readonly number: string };
export type CsvCell = string | number | CsvNumber;

/** A cell of a numeric column given as text: `-12.50` stays a negative amount, never a neutralised text. */
export const csvNumber = (text: string): CsvNumber => ({ number: text });

/** The first characters that make a spreadsheet read a cell as a formula (or hide what follows). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One field of an RFC 4180 record. A text that a spreadsheet would run as a formula is written
 * with a leading `'`, which spreadsheets show as text; then a field holding a comma, a quote or a
 * line break is quoted, its quotes doubled.
 */
function csvField(cell: CsvCell): string {
  if (typeof cell === 'number') return String(cell);
  if (typeof cell !== 'string') return cell.number;
  const text = FORMULA_START.test(cell) ? `'${cell}` : cell;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record: its fields joined by commas, without a line ending (callers choose theirs). */
export const csvRecord = (cells: readonly CsvCell[]): string => cells.map(csvField).join(',');
