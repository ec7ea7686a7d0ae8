import type { BulkLoad } from './demo-loader.js';
import type { ExportQuery } from './exports.js';
import type { Update } from './rollups.js';

/*
 * What the domain sees of the store, whichever engine holds the data (docs/store-engines.md): SQL
 * text with positional parameters, rows as plain objects, write transactions, ids. The two
 * implementations live in duckdb-store.ts and postgres-store.ts; callers never ask which one they
 * have: what differs between the engines is a method of the store or of Sql.
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
  all<T = Row>(sql: string, params?: Params): Promise<T[]>;
  one<T = Row>(sql: string, params?: Params): Promise<T | undefined>;
  /**
   * Runs a statement; one that inserts, updates, deletes or copies rows of a table the reports roll
   * up is refused (throws): those go through write or append (docs/rollups.md#the-refusal).
   */
  run(sql: string, params?: Params): Promise<void>;
  /**
   * Runs an UPDATE given by its parts (writer only); when the reports roll its table up, their
   * rollups of the rows it changes follow in the same transaction (docs/rollups.md#how-writes-keep-them).
   */
  write(update: Update, params?: Params): Promise<void>;
  /** Appends rows to a table inside the writer's transaction (writer only), with their rollups as write keeps them. */
  append<R extends object>(table: string, columns: Columns<R>, rows: readonly R[]): Promise<void>;
  /**
   * Locks each of `keys` (in the key class `space`) until the transaction ends, in key order, so
   * that two transactions locking the same keys never deadlock; a store with one writer needs none.
   */
  lockKeys(space: number, keys: readonly number[]): Promise<void>;
  /** The column that orders webhook_events rows of one instant by arrival. */
  readonly arrival: string;
  /**
   * Runs `effect` once this transaction has committed, before the next one begins (writer only); a
   * rollback drops it. Memory that mirrors the rows is kept in step this way (docs/outbound-webhooks.md#delivery).
   */
  afterCommit(effect: () => void): void;
  /**
   * Runs `fn` with the rolled-up tables that may have pending rows (docs/rollups.md#pending-rows):
   * a report reads the pending rows of those tables alone. Every table whose pending rows a
   * statement of `fn` could see is among them; should that not be sure, `fn` runs again with more.
   * PostgreSQL rolls up in the statement that writes and has none.
   */
  withPendingTables<T>(fn: (tables: ReadonlySet<string>) => Promise<T>): Promise<T>;
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
export type TransactionOptions = {
  isolation?: 'serializable' | 'read committed';
  /**
   * Asked as the transaction commits: whether its caller asks for another at once (a batcher with
   * items waiting). DuckDB then opens that one with the COMMIT, one native call fewer for the next
   * (docs/store-engines.md#the-next-transaction-opens-with-the-commit); PostgreSQL ignores it.
   */
  moreToCome?: () => boolean;
};

/** Every store, whichever the engine. */
export interface Store {
  /** For display and logs only: callers never branch on it. */
  readonly engine: 'duckdb' | 'postgres';
  /**
   * Whether other processes write the same database (PostgreSQL): then nothing this process
   * remembers of what it wrote is the whole story, and caches live for a bounded time
   * (docs/store-engines.md).
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
  /**
   * Runs `fn` in one bulk transaction on a connection of its own (the demo loader): commits when it
   * resolves, rolls back when it throws. Every row loaded belongs to the program `programId`, new
   * with the load; its rollups are built from them before the commit (docs/rollups.md#bulk-loads).
   */
  bulkLoad<T>(programId: number, fn: (load: BulkLoad) => Promise<T>): Promise<T>;
  /** Writes an export's rows to its file, answering their number; `onProgress` receives the fraction done. */
  exportTo(query: ExportQuery, onProgress?: (fraction: number) => void): Promise<number>;
  /** A consistent copy of the database at `target`; refuses (BackupError) where the database's own tools do it. */
  backup(target: string): Promise<void>;
  /**
   * Runs `fn` outside every write transaction, each statement committing by itself, waiting for
   * none: the rate limits' counters of a shared database (PostgreSQL). A store with one writer runs
   * it as a write transaction.
   */
  autocommit<T>(fn: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * Adds the sums of every pending row to the rollups now; reports read pending rows from the
   * events meanwhile, so this changes no report (docs/rollups.md#pending-rows). A store that rolls
   * up in the statements that write has nothing pending.
   */
  rollUp(): Promise<void>;
  /** Waits for queued transactions, then closes every connection. */
  close(): Promise<void>;
}
