import Table from 'cli-table3';

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
