import type { DuckDBStore } from './duckdb-store.js';
import type { PostgresStore } from './postgres-store.js';

/*
 * What the domain sees of the store, whichever engine holds the data (docs/store-engines.md#the-store-interface):
 * SQL text with positional parameters, rows as plain objects, write transactions, ids. The two
 * implementations live in duckdb-store.ts and postgres-store.ts; SQL that differs between the
 * dialects picks its text by `store.engine`.
 */

export type Row = Record<string, unknown>;

/** A list parameter (for `= ANY($n::T[])` and `unnest`), made with list(). */
export class ListParam {
  constructor(readonly values: ReadonlyArray<Param>) {}
}

/** A DATE parameter: the UTC day of an instant, made with dayValue(). */
export class DayParam {
  constructor(readonly at: Date) {}
}

/** A positional parameter; a Date binds as a UTC TIMESTAMP. */
export type Param = string | number | bigint | boolean | null | Date | ListParam | DayParam;
export type Params = Param[];

/** The UTC day of an instant as a DATE parameter: against a stored *_day column the filter stays a range. */
export function dayValue(at: Date): DayParam {
  return new DayParam(at);
}

/** A list parameter (for `= ANY($n::T[])` and `unnest`); Dates bind as TIMESTAMPs. */
export function list(values: ReadonlyArray<Param>): ListParam {
  return new ListParam(values);
}

/** What store functions run SQL through: a reader connection or the writer's open transaction. */
export interface Sql {
  /** The dialect, for the few statements whose text differs (docs/store-engines.md#one-interface-two-engines). */
  readonly engine: 'duckdb' | 'postgres';
  all<T = Row>(sql: string, params?: Params): Promise<T[]>;
  one<T = Row>(sql: string, params?: Params): Promise<T | undefined>;
  run(sql: string, params?: Params): Promise<void>;
  /**
   * Runs an INSERT or UPDATE of rows of `table`, naming the table without an alias (writer only):
   * on PostgreSQL the reports' rollups of the rows it changes follow in the same statement
   * (docs/rollups.md). Every write to a table the reports read goes through here or append.
   */
  write(table: string, sql: string, params?: Params): Promise<void>;
  /** Appends rows to a table inside the writer's transaction (writer only), with their rollups as write keeps them. */
  append<R extends object>(table: string, columns: Columns<R>, rows: readonly R[]): Promise<void>;
}

/** The column types rows are appended as. A DATE column takes the UTC day of a Date. */
export type ColumnType = 'BIGINT' | 'VARCHAR' | 'BOOLEAN' | 'TIMESTAMP' | 'DATE';
/** Every column of a table, in the table's order, with the row field that fills it. */
export type Columns<R> = ReadonlyArray<readonly [keyof R & string, ColumnType]>;

/** Called after each statement with its text and wall time (the benchmark's write profile). */
export type StatementObserver = (sql: string, ms: number) => void;

/** Hands out ids reserved by Store.idAllocator, synchronously; more than reserved is a bug and throws. */
export type IdAllocator = (table: string, count?: number) => number;

/**
 * How a write transaction sees the others. `serializable` (the default): as if the transactions of
 * all instances ran one after another. `read committed`: each statement sees what was committed
 * before it started, for a transaction that serializes what it reads itself, with locks
 * (docs/store-engines.md#one-interface-two-engines). DuckDB has one writer, so every transaction is serial there.
 */
export type TransactionOptions = { isolation?: 'serializable' | 'read committed' };

/** What every engine provides. */
export interface StoreEngine {
  readonly engine: 'duckdb' | 'postgres';
  /**
   * Whether other processes write the same database (PostgreSQL): then nothing this process
   * remembers of what it wrote is the whole story, and caches live for a bounded time
   * (docs/store-engines.md#what-a-process-may-remember).
   */
  readonly shared: boolean;
  /** Runs read-only SQL on a pooled connection. */
  read<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` in a write transaction; resolves after its COMMIT, rolls back if it throws. `fn` may
   * run more than once (PostgreSQL retries a transaction that lost a serialization conflict), so
   * whatever it does outside the store must be done again from scratch on each run.
   */
  transaction<T>(fn: (sql: Sql) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** The first of `count` consecutive new ids of a table. */
  nextId(sql: Sql, table: string, count?: number): Promise<number>;
  /** Reserves up to `needs[table]` ids of each table for one transaction, handed out synchronously. */
  idAllocator(sql: Sql, needs: Readonly<Record<string, number>>): Promise<IdAllocator>;
  /** Waits for queued transactions, then closes every connection. */
  close(): Promise<void>;
}

export type Store = DuckDBStore | PostgresStore;
