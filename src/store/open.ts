import type { Store, StatementObserver } from './db.js';

/** Where the data lives: a DuckDB file (or ':memory:'), or a PostgreSQL database by URL (docs/store-engines.md#postgresql). */
export type StoreLocation = { duckdb: string } | { postgres: string };

export type OpenOptions = {
  /** Reader connections. */
  readers?: number;
  /** Sees every statement of the writer connection. */
  observeWrites?: StatementObserver;
};

/** Opens the store; each engine's driver is loaded only when it is the one used. */
export async function openStore(location: StoreLocation, options: OpenOptions = {}): Promise<Store> {
  if ('postgres' in location) {
    const { PostgresStore } = await import('./postgres-store.js');
    return PostgresStore.open(location.postgres, options);
  }
  const { DuckDBStore } = await import('./duckdb-store.js');
  return DuckDBStore.open(location.duckdb, options);
}
