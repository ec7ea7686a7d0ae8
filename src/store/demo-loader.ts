import type { Store } from './db.js';

/** A cell: a number for BIGINT/INTEGER, epoch milliseconds or a Date for TIMESTAMP and DATE (its UTC day). */
export type Value = string | number | boolean | Date | null;

/** A column's values. */
export type ColumnValues = ArrayLike<Value>;

/** `rowCount` rows of one table given by column name. */
export type BulkRows = { table: string; columns: Record<string, ColumnValues>; rowCount: number };

/** Where the demo loader's rows go, part after part, inside one transaction. */
export interface BulkLoad {
  append(rows: BulkRows): Promise<void>;
}

/**
 * Runs `fn` in one bulk transaction on a connection of its own: commits when it resolves, rolls back
 * when it throws, so a failed load leaves nothing behind. Every row loaded belongs to the program
 * `programId`, new with the load: on PostgreSQL its rollups are built from them before the commit
 * (docs/rollups.md). Each engine's loader is loaded only when it is the one used.
 */
export async function bulkLoad<T>(store: Store, programId: number, fn: (load: BulkLoad) => Promise<T>): Promise<T> {
  if (store.engine === 'postgres') return (await import('./demo-loader-postgres.js')).CopyLoad.run(store, programId, fn);
  return (await import('./demo-loader-duckdb.js')).AppenderLoad.run(store, fn);
}
