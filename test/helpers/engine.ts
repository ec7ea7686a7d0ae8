import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, expect, onTestFinished } from 'vitest';
import type { Sql, Store } from '../../src/store/db.js';
import { openStore, type OpenOptions, type StoreLocation } from '../../src/store/open.js';
import { rollupDrift, type RollupDrift } from '../../src/store/rollups.js';

/**
 * The engine the behaviour suites run against: DuckDB, or PostgreSQL when
 * PARTNERKIT_TEST_DATABASE_URL names a database (`npm run test:postgres` sets it). On PostgreSQL
 * every test database is a schema of its own, made here and dropped when the test finishes.
 */
export const TEST_DATABASE_URL = process.env.PARTNERKIT_TEST_DATABASE_URL || undefined;
export const TEST_ENGINE: Store['engine'] = TEST_DATABASE_URL ? 'postgres' : 'duckdb';

/** psql with warnings and errors only: a dropped schema's cascade notices are one line per table. */
const psql = (sql: string) =>
  execFileSync('psql', [TEST_DATABASE_URL!, '-qXc', sql], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, PGOPTIONS: '-c client_min_messages=warning' } });

let schemas = 0;
/** The schema-scoped URL of each data dir (or ':memory:' store) a test uses. */
const urls = new Map<string, string>();

/** Schemas made outside a test (in a file's beforeAll), dropped after the file's last hook. */
const fileSchemas: string[] = [];
// Registered as this module loads, that is while the test file that imports it is collected.
afterAll(() => {
  for (const schema of fileSchemas.splice(0)) psql(`DROP SCHEMA ${schema} CASCADE`);
});

/**
 * The database URL of a fresh schema, or the one a data dir already got. Made in a test, the schema
 * is dropped when the test finishes; made for a whole file (in beforeAll), after the file.
 */
export function testDatabaseUrl(key = `memory-${++schemas}`): string {
  let url = urls.get(key);
  if (url) return url;
  const schema = `pk_test_${process.pid}_${++schemas}`;
  psql(`CREATE SCHEMA ${schema}`);
  if (expect.getState().currentTestName === undefined) {
    fileSchemas.push(schema);
  } else {
    onTestFinished(() => {
      urls.delete(key);
      psql(`DROP SCHEMA ${schema} CASCADE`);
    });
  }
  const parsed = new URL(TEST_DATABASE_URL!);
  parsed.searchParams.set('options', `-c search_path=${schema}`);
  urls.set(key, (url = parsed.toString()));
  return url;
}

/** Where a test's store lives: the DuckDB file (or memory), or its PostgreSQL schema. */
export function testLocation(duckdbPath = ':memory:'): StoreLocation {
  if (!TEST_DATABASE_URL) return { duckdb: duckdbPath };
  return { postgres: testDatabaseUrl(duckdbPath === ':memory:' ? undefined : duckdbPath) };
}

/** Opens a test's store; `dataDir` names a CLI data dir whose database it opens. Its close checks the rollups (checkedRollups). */
export async function openTestStore(options: OpenOptions & { path?: string; dataDir?: string } = {}): Promise<Store> {
  const path = options.dataDir ? join(options.dataDir, 'partnerkit.duckdb') : options.path;
  return checkedRollups(await openStore(testLocation(path), options));
}

/** A drift as lines a reader compares: each row's key, then each differing sum, stored against rebuilt. */
export function driftText(drift: RollupDrift[]): string {
  return drift
    .map((d) => {
      const sums = Object.keys(d.stored).filter((c) => d.stored[c] !== d.rebuilt[c]).map((c) => `${c} stored ${d.stored[c]}, events say ${d.rebuilt[c]}`);
      return `program ${d.program_id}, ${d.span} ${d.starts_at.toISOString()}, enrollment ${d.partner_program_id}: ${sums.join('; ')}`;
    })
    .join('\n');
}

/**
 * The rollup check (docs/rollups.md#the-check): before the store closes (when its test, or its
 * file, ends), the rollups are rebuilt from the events and compared with the stored ones; a
 * difference fails the test or the file with the rows that differ, and so does a store the check
 * cannot read (a test that breaks one on purpose mends it before it ends).
 */
export function checkedRollups(store: Store): Store {
  const close = store.close.bind(store);
  let checked = false;
  store.close = async () => {
    let drift: RollupDrift[] = [];
    if (!checked) {
      checked = true;
      drift = await store.read((sql) => rollupDrift(sql)).catch(async (error: unknown) => {
        await close();
        throw new Error(`the rollup check could not read the store: ${String(error)}`);
      });
    }
    await close();
    if (drift.length > 0) throw new Error(`the stored rollups differ from what the events sum to:\n${driftText(drift)}`);
  };
  return store;
}

/** The environment a CLI process gets so that it uses the test's engine for a data dir. */
export function engineEnv(dataDir: string): Record<string, string> {
  return TEST_DATABASE_URL ? { PARTNERKIT_DATABASE_URL: testDatabaseUrl(join(dataDir, 'partnerkit.duckdb')) } : {};
}

/** The store's writer connection, whichever the engine, for tests that make it fail (a full disk, an I/O error). */
export async function writerOf(store: Store): Promise<Sql> {
  return (store as unknown as { writer: Sql | Promise<Sql> }).writer;
}

/**
 * Runs a statement run() refuses because it writes a rolled-up table, without keeping the rollups:
 * only for fixtures of databases made before the rollups existed, which the migration then rolls up
 * (docs/rollups.md#the-refusal).
 */
export function runUnrolled(sql: Sql, text: string): Promise<void> {
  return (sql as unknown as { runScript(text: string): Promise<void> }).runScript(text);
}
