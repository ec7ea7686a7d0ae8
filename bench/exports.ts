import { createReadStream, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFromStdin } from 'pg-copy-streams';
import { DuckDBStore } from '../src/store/duckdb-store.js';
import { copyTable, type ExportFilter } from '../src/store/exports.js';
import { PostgresStore } from '../src/store/postgres-store.js';
import { postgresSchema, summarize, tempDir, type Summary } from './lib.js';
import { NOW } from './report.js';

export type ExportFigures = { rows: number; export: Summary; rawCopy: Summary; exportMiB: number; rawMiB: number };

const mib = (path: string) => statSync(path).size / 2 ** 20;

/**
 * The Parquet export of the demo's clicks (docs/exports.md#how-an-export-is-built) beside a raw `COPY clicks TO …
 * (FORMAT parquet)` on the same store, in the same way (a connection of its own), `runs` times
 * each, interleaved so both see the same machine: the ceiling is DuckDB writing the table as it is,
 * without the partner join, the UTC instants and the program filter.
 */
export async function benchExports(dataDir: string, programId: number, runs = 3): Promise<ExportFigures> {
  const out = tempDir('export');
  const store = await DuckDBStore.open(join(dataDir, 'partnerkit.duckdb'));
  try {
    const exportPath = join(out.path, 'clicks.parquet');
    const rawPath = join(out.path, 'raw.parquet');
    const filter = { programId, from: null, to: null, includeTest: false, now: new Date(NOW) };
    const [exportMs, rawMs]: number[][] = [[], []];
    let rows = 0;
    for (let run = 0; run < runs; run++) {
      let started = performance.now();
      rows = await copyTable(store, 'clicks', filter, 'parquet', exportPath);
      exportMs.push(performance.now() - started);
      started = performance.now();
      await store.copyTo('SELECT * FROM clicks', [], rawPath, 'FORMAT parquet');
      rawMs.push(performance.now() - started);
    }
    return { rows, export: summarize(exportMs), rawCopy: summarize(rawMs), exportMiB: mib(exportPath), rawMiB: mib(rawPath) };
  } finally {
    await store.close();
    out.remove();
  }
}

export type PostgresExportFigures = {
  rows: number;
  /** The export from PostgreSQL (docs/store-engines.md#exports-from-postgresql), the same export from the DuckDB file, and PostgreSQL's COPY of the clicks' rows alone. */
  postgres: Summary;
  duckdb: Summary;
  copyOut: Summary;
  /** Whether both engines wrote the same bytes. */
  identical: boolean;
};

/** The tables the exports read, in the demo's DuckDB file and in the PostgreSQL schema alike. */
const TABLES = ['programs', 'partners', 'partner_programs', 'clicks', 'customers', 'sale_events', 'test_sale_events', 'commissions', 'refunds', 'payouts'];

/** The demo's tables copied into a fresh schema of `databaseUrl` as CSV; answers the schema's URL and how to drop it. */
async function copyToPostgres(duckdb: DuckDBStore, databaseUrl: string, dir: string): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = await postgresSchema(databaseUrl, 'exports');
  await (await PostgresStore.open(schema.url)).close();
  const client = new pg.Client({ connectionString: schema.url });
  await client.connect();
  try {
    for (const table of TABLES) {
      const csv = join(dir, `${table}.csv`);
      // PostgreSQL reads an array as {1,2}, DuckDB writes a list as [1, 2].
      const select = table === 'payouts' ? `SELECT * REPLACE ('{' || array_to_string(commission_ids, ',') || '}' AS commission_ids) FROM payouts` : `SELECT * FROM ${table}`;
      await duckdb.copyTo(select, [], csv, 'FORMAT csv, HEADER false');
      await pipeline(createReadStream(csv), client.query(copyFromStdin(`COPY ${table} FROM STDIN (FORMAT csv)`)));
    }
    await client.query('ANALYZE');
  } finally {
    await client.end();
  }
  return schema;
}

/**
 * The Parquet export of the demo's clicks from PostgreSQL (docs/store-engines.md#exports-from-postgresql), the demo's
 * data copied into a schema of its own at `databaseUrl`, beside the same export from the DuckDB
 * file and a bare COPY of the clicks' rows out of PostgreSQL (the transfer the export starts with),
 * `runs` times each, interleaved; checks that both engines wrote the same bytes.
 */
export async function benchPostgresExports(dataDir: string, programId: number, databaseUrl: string, runs = 3): Promise<PostgresExportFigures> {
  const out = tempDir('export-pg');
  const duckdb = await DuckDBStore.open(join(dataDir, 'partnerkit.duckdb'));
  const target = await copyToPostgres(duckdb, databaseUrl, out.path);
  const postgres = await PostgresStore.open(target.url);
  try {
    const filter: ExportFilter = { programId, from: null, to: null, includeTest: false, now: new Date(NOW) };
    const paths = { postgres: join(out.path, 'pg.parquet'), duckdb: join(out.path, 'duckdb.parquet'), copyOut: join(out.path, 'clicks.csv') };
    const ms = { postgres: [] as number[], duckdb: [] as number[], copyOut: [] as number[] };
    let rows = 0;
    for (let run = 0; run < runs; run++) {
      let started = performance.now();
      rows = await copyTable(postgres, 'clicks', filter, 'parquet', paths.postgres);
      ms.postgres.push(performance.now() - started);
      started = performance.now();
      await copyTable(duckdb, 'clicks', filter, 'parquet', paths.duckdb);
      ms.duckdb.push(performance.now() - started);
      started = performance.now();
      await postgres.copyOut([{ sql: 'SELECT * FROM clicks WHERE program_id = $1 AND NOT is_test', params: [programId], path: paths.copyOut }]);
      ms.copyOut.push(performance.now() - started);
    }
    return {
      rows,
      postgres: summarize(ms.postgres),
      duckdb: summarize(ms.duckdb),
      copyOut: summarize(ms.copyOut),
      identical: readFileSync(paths.postgres).equals(readFileSync(paths.duckdb)),
    };
  } finally {
    await postgres.close();
    await duckdb.close();
    await target.drop();
    out.remove();
  }
}
