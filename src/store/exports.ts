import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataFormat, ExportTable } from '../api/constants.js';
import { COMMISSIONS, statusAt } from './commissions.js';
import { list, type Params, type Store } from './db.js';
import type { PostgresStore } from './postgres-store.js';

/** Which of a program's rows an export writes (docs/exports.md#what-an-export-holds). */
export type ExportFilter = {
  programId: number;
  /** Rows whose time (the table's own, see TABLES) is in [from, to]; null leaves that side open. */
  from: Date | null;
  to: Date | null;
  includeTest: boolean;
  /** The instant commission statuses are read at. */
  now: Date;
};

/**
 * A stored UTC instant as TIMESTAMPTZ: Parquet marks the column UTC, and CSV and JSON write it as
 * ISO 8601 with a Z. Built from its microseconds, which takes no time zone lookup: `timezone('UTC', …)`
 * or a cast cost 25 times as much, a quarter of a ten-million-click export (docs/exports.md#how-an-export-is-built).
 */
const instant = (column: string, name: string) => `make_timestamptz(epoch_us(${column})) AS ${name}`;
/** Cents as stored, and the same amount in currency units: an exact DECIMAL, never a float. */
const money = (column: string, name: string) => `${column} AS ${name}_cents, ${column}::DECIMAL(38,0) * 0.01 AS ${name}`;
const partner = (text: Text) => `pp.partner_id, ${text('pa.name', 'partner_name')}, ${text('pp.ref_code')}`;
const PARTNERS = 'partner_programs pp JOIN partners pa ON pa.id = pp.partner_id';

/**
 * The conditions of one table of a SELECT: alias `alias` of the program's rows whose `time` is in
 * the range, without test rows (those where `test` holds) unless they were asked for.
 */
type Where = (alias: string, time: string, test?: string) => string;

/**
 * A text column under its name (by default the column's own). In a CSV file, a text that begins
 * with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading `'`, so a spreadsheet shows it
 * rather than running it as a formula (docs/exports.md#csv-cells-a-spreadsheet-would-run); JSON
 * and Parquet keep the text as stored. Numbers never go through it, so negative amounts stay numbers.
 */
type Text = (column: string, name?: string) => string;

const FORMULA_START = "('=', '+', '-', '@', chr(9), chr(13))";
const textAsStored: Text = (column, name = column.slice(column.indexOf('.') + 1)) => `${column} AS ${name}`;
const csvText: Text = (column, name = column.slice(column.indexOf('.') + 1)) =>
  `CASE WHEN left(${column}, 1) IN ${FORMULA_START} THEN '''' || ${column} ELSE ${column} END AS ${name}`;

/** What a table's SELECT is built with: its conditions, the parameter of the export's instant, its text columns. */
type Build = { where: Where; now: () => string; text: Text };

/**
 * A table's export: the SELECT of its rows (live and, for the tables that keep them, test rows).
 * `now` is the parameter the commission statuses are read at. No column holds a secret or a
 * visitor's hash (docs/exports.md#what-an-export-holds).
 */
type TableExport = (build: Build) => string;

const TABLES: Record<ExportTable, TableExport> = {
  // Millions of rows, sorted by id: the partner's name and code in every row would make the sort
  // carry them too, a quarter of the export (docs/exports.md#how-an-export-is-built); the id joins them.
  clicks: ({ where, text }) => `
    SELECT c.id, ${text('c.click_id')}, pp.partner_id, ${text('c.landing_url')}, ${text('c.referrer')}, c.is_test, ${instant('c.created_at', 'created_at')}
    FROM clicks c JOIN partner_programs pp ON pp.id = c.partner_program_id
    WHERE ${where('c', 'c.created_at', 'c.is_test')}`,
  customers: ({ where, text }) => `
    SELECT cu.id, ${text('cu.customer_key')}, ${text('cu.email')}, ${text('cu.name')}, ${partner(text)}, ${text('cu.click_ref', 'click_id')},
      ${text('cu.provider_customer_id')}, ${text('cu.status')}, ${instant('cu.signup_date', 'signup_at')}, ${instant('cu.first_purchase_date', 'first_purchase_at')}
    FROM customers cu JOIN ${PARTNERS} ON pp.id = cu.partner_program_id
    WHERE ${where('cu', 'cu.signup_date')}`,
  // Test sales are kept apart, with ids of their own: (id, is_test) names a sale.
  sales: ({ where, text }) => `
    SELECT s.id, false AS is_test, ${partner(text)}, s.customer_id, ${text('cu.customer_key')}, ${text('s.transaction_id')}, ${money('s.amount_cents', 'amount')},
      ${money('s.tax_cents', 'tax')}, ${text('s.currency')}, ${text('s.sale_type')}, s.is_recurring, ${text('s.subscription_id')}, ${text('s.subscription_interval')},
      ${text('s.product_id')}, ${text('s.provider')}, ${text('s.provider_payment_id')}, ${text('s.source')}, ${instant('s.occurred_at', 'occurred_at')},
      ${instant('s.received_at', 'received_at')}
    FROM sale_events s JOIN ${PARTNERS} ON pp.id = s.partner_program_id JOIN customers cu ON cu.id = s.customer_id
    WHERE ${where('s', 'coalesce(s.occurred_at, s.received_at)')}
    UNION ALL
    SELECT t.id, true, NULL, NULL, NULL, NULL, ${text('t.customer_key')}, ${text('t.transaction_id')}, ${money('t.amount_cents', 'amount')}, NULL, NULL,
      ${text('t.currency')}, NULL, NULL, NULL, NULL, NULL, NULL, ${text('t.provider_payment_id')}, NULL, NULL, ${instant('t.received_at', 'received_at')}
    FROM test_sale_events t
    WHERE ${where('t', 't.received_at', 'true')}`,
  commissions: ({ where, now, text }) => `
    SELECT c.id, c.sale_id, ${partner(text)}, ${text('c.type')}, ${money('c.amount_cents', 'amount')}, ${text('c.currency')}, c.percent_bp,
      ${text(statusAt(now()), 'status')}, ${text('c.reason')}, c.payout_id, ${instant('c.created_at', 'created_at')}, ${instant('c.hold_until', 'hold_until')},
      ${instant('c.paid_at', 'paid_at')}
    FROM ${COMMISSIONS} JOIN partners pa ON pa.id = pp.partner_id
    WHERE ${where('c', 'c.created_at')}`,
  refunds: ({ where, text }) => `
    SELECT r.id, ${text('r.refund_id')}, r.mode = 'test' AS is_test, r.sale_id, ${partner(text)}, ${money('r.amount_cents', 'amount')}, ${text('r.currency')},
      ${text('r.reason')}, ${text('r.source')}, r.completes_sale, ${instant('r.received_at', 'received_at')}
    FROM refunds r LEFT JOIN ${PARTNERS} ON pp.id = r.partner_program_id
    WHERE ${where('r', 'r.received_at', "r.mode = 'test'")}`,
  payouts: ({ where, text }) => `
    SELECT po.id, po.batch_id, po.partner_id, ${text('pa.name', 'partner_name')}, ${text('po.currency')}, ${money('po.amount_cents::DECIMAL(38,0)', 'amount')},
      len(po.commission_ids) AS commission_count, ${text('po.status')}, ${instant('po.created_at', 'created_at')}, ${instant('po.paid_at', 'paid_at')}
    FROM payouts po JOIN partners pa ON pa.id = po.partner_id
    WHERE ${where('po', 'po.created_at')}`,
};

/** Every row in id order; the test sales after the live ones. */
const ORDER: Record<ExportTable, string> = {
  clicks: 'id', customers: 'id', sales: 'is_test, id', commissions: 'id', refunds: 'id', payouts: 'id',
};

const ISO_INSTANT = "TIMESTAMPFORMAT '%Y-%m-%dT%H:%M:%S.%gZ'";
const COPY_OPTIONS: Record<DataFormat, string> = {
  csv: `FORMAT csv, HEADER true, ${ISO_INSTANT}`,
  json: `FORMAT json, ARRAY true, ${ISO_INSTANT}`,
  parquet: 'FORMAT parquet',
};

/** The SELECT of a table's rows under the filter, in order, its parameters, and the conditions it puts on each alias. */
export function exportSelect(table: ExportTable, filter: ExportFilter, format: DataFormat): { select: string; params: Params; conditions: Map<string, string> } {
  const params: Params = [filter.programId];
  const param = (value: Date) => `$${params.push(value)}`;
  const from = filter.from && param(filter.from);
  const to = filter.to && param(filter.to);
  const conditions = new Map<string, string>();
  const where: Where = (alias, time, test) => {
    const terms = [`${alias}.program_id = $1`];
    if (from) terms.push(`${time} >= ${from}`);
    if (to) terms.push(`${time} <= ${to}`);
    if (test && !filter.includeTest) terms.push(`NOT ${test}`);
    const text = terms.join(' AND ');
    conditions.set(alias, text);
    return text;
  };
  const text = format === 'csv' ? csvText : textAsStored;
  return { select: `${TABLES[table]({ where, now: () => param(filter.now), text })} ORDER BY ${ORDER[table]}`, params, conditions };
}

/**
 * The tables each export's SELECT reads, for the PostgreSQL path: each with the alias whose
 * conditions select its rows, or null for the program's rows (PROGRAM_ROWS).
 */
const READS: Record<ExportTable, Record<string, string | null>> = {
  clicks: { clicks: 'c', partner_programs: null },
  customers: { customers: 'cu', partner_programs: null, partners: null },
  sales: { sale_events: 's', test_sale_events: 't', customers: null, partner_programs: null, partners: null },
  commissions: { commissions: 'c', programs: null, partner_programs: null, partners: null },
  refunds: { refunds: 'r', partner_programs: null, partners: null },
  payouts: { payouts: 'po', partners: null },
};

/** The rows of program $1 in a table without a program_id of its own; `program_id = $1` in the others. */
const PROGRAM_ROWS: Record<string, string> = {
  programs: 'id = $1',
  partners: 'id IN (SELECT partner_id FROM partner_programs WHERE program_id = $1)',
};

/** PostgreSQL's COPY … (FORMAT csv) as DuckDB reads it back: an empty quoted value is an empty text, not NULL. */
const CSV_IN = `FORMAT csv, HEADER false, AUTO_DETECT false, DELIM ',', QUOTE '"', ESCAPE '"', ALLOW_QUOTED_NULLS false`;

/** What the staging DuckDB may hold in memory; beyond it, it spills to its temporary directory. */
const STAGING_MEMORY = '1GB';

/** Progress of the PostgreSQL path: the share of the time copying out of PostgreSQL and loading DuckDB take (measured, docs/store-engines.md#exports-from-postgresql). */
const STAGES = { copyOut: 0.4, load: 0.7 };

/** An export: its SELECT with parameters and conditions, the file's COPY options and path, and where a staging store spills. */
export type ExportQuery = ReturnType<typeof exportSelect> & { table: ExportTable; options: string; path: string; stagingDir: string };

/**
 * An export from PostgreSQL (docs/store-engines.md), the PostgreSQL store's exportTo:
 * the rows its SELECT reads are copied out of PostgreSQL as CSV, in one snapshot, into tables of the
 * same names and columns in an in-memory DuckDB, which then runs the very statement of the DuckDB
 * path: the file is byte for byte what DuckDB writes from the same data. Everything staged lives in
 * a private temporary directory under `stagingDir` (DuckDB spills there), removed at the end.
 */
export async function copyFromPostgres(store: PostgresStore, query: ExportQuery, onProgress?: (fraction: number) => void): Promise<number> {
  const { table, select, params, conditions, options, path, stagingDir } = query;
  const { DuckDBStore } = await import('./duckdb-store.js');
  const dir = await mkdtemp(join(stagingDir, 'partnerkit-export-stage-'));
  try {
    const staging = await DuckDBStore.open(':memory:', { readers: 1, tempDirectory: dir, memoryLimit: STAGING_MEMORY });
    try {
      const staged = await staging.read((sql) =>
        sql.all<{ name: string; columns: string[] }>(
          `SELECT table_name AS name, list(CASE WHEN data_type LIKE '%[]' THEN 'array_to_json(' || column_name || ')' ELSE column_name END ORDER BY column_index) AS columns
           FROM duckdb_columns() WHERE table_name IN (SELECT unnest($1::VARCHAR[])) GROUP BY table_name`,
          [list(Object.keys(READS[table]))],
        ),
      );
      const files = staged.map(({ name, columns }) => {
        const alias = READS[table][name];
        const rows = alias === null ? `${name} WHERE ${PROGRAM_ROWS[name] ?? 'program_id = $1'}` : `${name} ${alias} WHERE ${conditions.get(alias)}`;
        return { name, sql: `SELECT ${columns.join(', ')} FROM ${rows}`, params, path: join(dir, `${name}.csv`) };
      });
      await store.copyOut(files, onProgress && ((fraction) => onProgress(fraction * STAGES.copyOut)));
      for (const [i, file] of files.entries()) {
        await staging.transaction((sql) => sql.run(`COPY ${file.name} FROM '${file.path.replaceAll("'", "''")}' (${CSV_IN})`));
        await rm(file.path);
        onProgress?.(STAGES.copyOut + ((i + 1) / files.length) * (STAGES.load - STAGES.copyOut));
      }
      return await staging.copyTo(select, params, path, options, onProgress && ((fraction) => onProgress(STAGES.load + fraction * (1 - STAGES.load))));
    } finally {
      await staging.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Writes a table's rows under the filter to `path` in `format`; answers the number of rows. On
 * PostgreSQL the rows are staged in a directory made under `stagingDir` (the system's temporary
 * directory unless told).
 */
export function copyTable(
  store: Store,
  table: ExportTable,
  filter: ExportFilter,
  format: DataFormat,
  path: string,
  onProgress?: (fraction: number) => void,
  stagingDir = tmpdir(),
): Promise<number> {
  return store.exportTo({ ...exportSelect(table, filter, format), table, options: COPY_OPTIONS[format], path, stagingDir }, onProgress);
}
