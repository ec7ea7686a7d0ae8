import type {
  DuckDBAppender,
  DuckDBConnection,
  DuckDBDateValue,
  DuckDBInstance,
  DuckDBListType,
  DuckDBMaterializedResult,
  DuckDBPreparedStatement,
  DuckDBType,
  DuckDBValue,
} from '@duckdb/node-api';
import { copyFile } from 'node:fs/promises';
import { epochDay } from '../days.js';
import { DayParam, ListParam, type Columns, type ColumnType, type IdAllocator, type Param, type Params, type Row, type Sql, type StatementObserver, type Store, type TransactionOptions } from './db.js';
import { SerialQueue } from './serial-queue.js';
import { PendingRows, type PendingRange } from './pending-rows.js';
import { duckdb } from './duckdb.js';
import { applyMigrations, migrations as defaultMigrations, type Migration } from './migrations/index.js';
import { BackupError } from './backup.js';
import type { BulkLoad } from './demo-loader.js';
import type { ExportQuery } from './exports.js';
import { BULK_WRITER, refuseRolledUp, ROLL_UP_PENDING, ROLLED_UP, rollsUp, takeOutParams, takeOutRows, updatedIds, updateText, type Update } from './rollups.js';

function toDuckDB(value: Param): DuckDBValue {
  if (value instanceof Date) return duckdb.timestampValue(BigInt(value.getTime()) * 1000n);
  if (value instanceof ListParam) return duckdb.listValue(value.values.map(toDuckDB));
  if (value instanceof DayParam) return dateValue(value.at);
  return value;
}

function bind(params: Params): DuckDBValue[] | undefined {
  if (params.length === 0) return undefined; // lets a parameterless call carry several statements
  return params.map(toDuckDB);
}

const dateValue = (at: Date): DuckDBDateValue => duckdb.dateValue(epochDay(at.getTime()));

/**
 * BIGINT comes back as bigint; every value the service stores fits a double, so it becomes a number
 * here, once. A HUGEINT stays a bigint: it is what sums of money are computed in, and a sum of
 * stored amounts can pass 2^53 (docs/store-engines.md#values-crossing-the-boundary).
 */
function toJs(value: unknown, type: DuckDBType): unknown {
  if (typeof value === 'bigint' && type.typeId !== duckdb.DuckDBTypeId.HUGEINT) return Number(value);
  return value;
}

function appendValue(appender: DuckDBAppender, type: ColumnType, value: unknown): void {
  if (value === null || value === undefined) return appender.appendNull();
  switch (type) {
    case 'BIGINT':
      return appender.appendBigInt(BigInt(value as number));
    case 'VARCHAR':
      return appender.appendVarchar(value as string);
    case 'BOOLEAN':
      return appender.appendBoolean(value as boolean);
    case 'TIMESTAMP':
      return appender.appendTimestamp(duckdb.timestampValue(BigInt((value as Date).getTime()) * 1000n));
    case 'DATE':
      return appender.appendDate(dateValue(value as Date));
  }
}

/**
 * The types a statement declares for its parameters, which its values are bound as: a value bound
 * as another type (a JS number is a DOUBLE to the driver) makes DuckDB bind and plan the statement
 * again at every run. A parameter whose type the statement leaves open is bound as its value's.
 */
function declaredTypes(statement: DuckDBPreparedStatement): Array<DuckDBType | undefined> {
  return Array.from({ length: statement.parameterCount }, (_, i) => {
    try {
      return statement.parameterType(i + 1);
    } catch {
      return undefined; // the statement leaves it open: DuckDB answers no type
    }
  });
}

/**
 * A JS number as the BIGINT a statement declares (or a list of them as its BIGINT[]); undefined
 * for any other value, which binds as the type it has.
 */
function asDeclared(value: DuckDBValue, type: DuckDBType): DuckDBValue | undefined {
  if (typeof value === 'number') return type.typeId === duckdb.DuckDBTypeId.BIGINT && Number.isInteger(value) ? BigInt(value) : undefined;
  if (!(value instanceof duckdb.DuckDBListValue) || type.typeId !== duckdb.DuckDBTypeId.LIST) return undefined;
  const items = value.items.map((item) => asDeclared(item, (type as DuckDBListType).valueType));
  return items.every((item) => item !== undefined) ? duckdb.listValue(items) : undefined;
}

/** Prepared statements kept per connection: the service's SQL is a fixed set of texts. */
const MAX_PREPARED = 256;

/** The one writer's rollup rows: one process holds the file (docs/rollups.md#what-they-hold). */
const WRITER = String(BULK_WRITER);
/** How many pending rows make the roll-up run at once (docs/rollups.md#pending-rows). */
const ROLL_UP_ROWS = 20_000;

/** rollups_pending's columns, as the appender fills them. */
const PENDING_COLUMNS: Columns<PendingRange> = [['table_name', 'VARCHAR'], ['first_id', 'BIGINT'], ['last_id', 'BIGINT']];

class ConnectionSql implements Sql {
  readonly arrival = 'rowid';
  private readonly prepared = new Map<string, { statement: DuckDBPreparedStatement; types: Array<DuckDBType | undefined> }>();
  private readonly checkedTables = new Set<string>();
  private readonly appenders = new Map<string, DuckDBAppender>();
  private effects: Array<() => void> = [];
  constructor(
    readonly connection: DuckDBConnection,
    /** Which rows the rollups do not hold yet (docs/rollups.md#pending-rows): the store's, shared by its connections. */
    readonly pending: PendingRows,
    private readonly observe?: StatementObserver,
  ) {}

  afterCommit(effect: () => void): void {
    this.effects.push(effect);
  }

  /** The effects of the transaction that ended, for the store to run (committed) or drop (rolled back). */
  takeEffects(): Array<() => void> {
    return this.effects.splice(0);
  }

  /**
   * Runs a statement; with parameters through a cached prepared statement, which saves the parse,
   * plan and two native round trips that each call would otherwise pay (DuckDB re-binds a cached
   * statement by itself when the schema has changed since). The result comes back materialized in
   * that one native call; its chunks are then read synchronously.
   */
  private async execute(sql: string, params: Params): Promise<DuckDBMaterializedResult> {
    if (!this.observe) return this.executeNow(sql, params);
    const started = performance.now();
    try {
      return await this.executeNow(sql, params);
    } finally {
      this.observe(sql, performance.now() - started);
    }
  }

  private async executeNow(sql: string, params: Params): Promise<DuckDBMaterializedResult> {
    const values = bind(params);
    if (values === undefined) return this.connection.run(sql);
    let prepared = this.prepared.get(sql);
    if (!prepared) {
      if (this.prepared.size >= MAX_PREPARED) this.closeStatements();
      const statement = await this.connection.prepare(sql);
      prepared = { statement, types: declaredTypes(statement) };
      this.prepared.set(sql, prepared);
    }
    const { statement, types } = prepared;
    values.forEach((value, i) => {
      const declared = types[i] && asDeclared(value, types[i]);
      if (declared === undefined) statement.bindValue(i + 1, value);
      else statement.bindValue(i + 1, declared, types[i]);
    });
    return statement.run();
  }

  closeStatements(): void {
    for (const { statement } of this.prepared.values()) statement.destroySync();
    this.prepared.clear();
  }

  close(): void {
    this.closeStatements();
    for (const appender of this.appenders.values()) appender.closeSync();
    this.appenders.clear();
    this.connection.closeSync();
  }

  /**
   * Appends rows through DuckDB's appender: synchronous native calls, no statement to plan and no
   * list parameters to build, several times cheaper than an INSERT of the same rows (bench profile).
   * Inside a transaction the rows are part of it and constraints are checked at the flush; a
   * violation throws and leaves the transaction to be rolled back, as a failed INSERT does.
   */
  async append<R extends object>(table: string, columns: Columns<R>, rows: readonly R[]): Promise<void> {
    if (rows.length === 0) return;
    await this.checkColumns(table, columns);
    const started = performance.now();
    const appender = this.appenders.get(table) ?? (await this.appenderOf(table));
    try {
      for (const row of rows) {
        for (const [name, type] of columns) appendValue(appender, type, row[name]);
        appender.endRow();
      }
      appender.flushSync();
    } catch (error) {
      this.appenders.delete(table);
      appender.clear();
      appender.closeSync();
      throw error;
    } finally {
      this.observe?.(`APPEND ${table}`, performance.now() - started);
    }
    if (rollsUp(table)) this.pending.append(table, rows.map((row) => (row as { id: number }).id));
  }

  /**
   * The table's appender, kept for the connection's life: a flush appends to whatever transaction
   * is open, so one appender serves them all, and creating one per transaction (a native round
   * trip) cost a tenth of click throughput. One whose flush failed is closed and not reused.
   */
  private async appenderOf(table: string): Promise<DuckDBAppender> {
    const appender = await this.connection.createAppender(table);
    this.appenders.set(table, appender);
    return appender;
  }

  /**
   * Records the rows the transaction appended or updated as pending, as ranges of ids through the
   * appender: run before its COMMIT instead of a roll-up (docs/rollups.md#pending-rows).
   */
  async recordPending(): Promise<void> {
    await this.append('rollups_pending', PENDING_COLUMNS, this.pending.toRecord());
  }

  /** The appender fills columns by position: the declared list must be the table's, in order (checked once). */
  private async checkColumns<R>(table: string, columns: Columns<R>): Promise<void> {
    if (this.checkedTables.has(table)) return;
    const actual = await this.all<{ name: string; type: string }>(
      'SELECT column_name AS name, data_type AS type FROM duckdb_columns() WHERE table_name = $1 ORDER BY column_index',
      [table],
    );
    const declared = columns.map(([name, type]) => `${name} ${type}`).join(', ');
    const stored = actual.map((c) => `${c.name} ${c.type}`).join(', ');
    if (declared !== stored) throw new Error(`append to ${table}: columns (${declared}) are not the table's (${stored})`);
    this.checkedTables.add(table);
  }

  async all<T = Row>(sql: string, params: Params = []): Promise<T[]> {
    const result = await this.execute(sql, params);
    const names = result.deduplicatedColumnNames();
    const rows: Row[] = [];
    for (let c = 0; c < result.chunkCount; c++) {
      const chunk = result.getChunk(c);
      for (let r = 0; r < chunk.rowCount; r++) {
        const row: Row = {};
        chunk.visitRowValues(r, (value, _, column, type) => {
          row[names[column]] = toJs(duckdb.JSDuckDBValueConverter(value, type, duckdb.JSDuckDBValueConverter), type);
        });
        rows.push(row);
      }
    }
    return rows as T[];
  }

  async one<T = Row>(sql: string, params: Params = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  async run(sql: string, params: Params = []): Promise<void> {
    refuseRolledUp(sql);
    await this.execute(sql, params);
  }

  /** A migration's script, which may rewrite events before a later one rebuilds their rollups. */
  async runScript(sql: string): Promise<void> {
    await this.execute(sql, []);
  }

  /**
   * The UPDATE, with the rollups of the rows it changes: the sums of those the rollups hold are
   * taken out before it; then every row it changed is pending, added back by the next roll-up
   * (docs/rollups.md#how-writes-keep-them).
   */
  async write(update: Update, params: Params = []): Promise<void> {
    if (!rollsUp(update.table)) return this.run(updateText(update), params);
    const ids = (await this.all<{ id: number }>(updatedIds(update, params.length), params)).map((row) => row.id);
    if (ids.length === 0) return;
    const rolledUp = ids.filter((id) => !this.pending.has(update.table, id));
    if (rolledUp.length > 0) await this.execute(takeOutRows(update.table, WRITER), takeOutParams(rolledUp));
    await this.execute(updateText(update), params);
    this.pending.update(update.table, ids);
  }

  /** One writer: nothing to lock against. */
  async lockKeys(): Promise<void> {}

  /**
   * The tables as the writer of this process, the file's only one, knows them: no statement, no
   * transaction. Reading the pending rows of a table that has none costs time, not correctness, so
   * should a transaction bring rows of another table while `fn` runs (its statements may see them),
   * `fn` runs again with every rolled-up table (docs/rollups.md#pending-rows).
   */
  async withPendingTables<T>(fn: (tables: ReadonlySet<string>) => Promise<T>): Promise<T> {
    const additions = this.pending.additions;
    const value = await fn(this.pending.tables());
    return this.pending.additions === additions ? value : fn(ROLLED_UP);
  }
}


export type StoreOptions = {
  /** Reader connections; each serves one request at a time (docs/store-engines.md#duckdb-facts-the-design-relies-on). */
  readers?: number;
  threads?: number;
  /** Where DuckDB spills what does not fit in memory; an in-memory database otherwise spills into `.tmp` of the working directory. */
  tempDirectory?: string;
  /** DuckDB's memory limit (e.g. '512MB'; DuckDB's default is 80 % of the machine's memory). */
  memoryLimit?: string;
  migrations?: readonly Migration[];
  /** Sees every statement of the writer connection. */
  observeWrites?: StatementObserver;
  /** How long written rows stay pending at most before their roll-up, in ms (docs/rollups.md#pending-rows); 1000 unless given. */
  rollUpMs?: number;
};

/**
 * The one DuckDB instance of this process (the embedded engine). Reads go to a small pool of connections; every write
 * runs in a transaction on the one writer connection, one transaction at a time in the order
 * asked, and resolves only after its COMMIT returned (the WAL is then on disk). A transaction whose
 * function throws is rolled back and rejects with that error; the store knows nothing of what the
 * error means. Grouping many requests into one transaction is the WriteBatcher's job
 * (src/domain/write-batcher.ts).
 */
export class DuckDBStore implements Store {
  readonly engine = 'duckdb';
  readonly shared = false;
  private readonly writes = new SerialQueue();
  private closed = false;
  private readonly idle: ConnectionSql[];
  private readonly waiting: Array<(sql: ConnectionSql) => void> = [];
  private readonly nextIds = new Map<string, number>();
  private rollUpTimer: NodeJS.Timeout | undefined;
  private rollUpQueued = false;
  /** Whether the writer's last COMMIT opened the next transaction (see run). */
  private opened = false;

  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly writer: ConnectionSql,
    readers: ConnectionSql[],
    /** The database file (':memory:' for none). */
    readonly path: string,
    private readonly rollUpMs: number,
  ) {
    this.idle = readers;
  }

  static async open(path: string, options: StoreOptions = {}): Promise<DuckDBStore> {
    const config: Record<string, string> = { threads: String(options.threads ?? 2) };
    if (options.tempDirectory) config.temp_directory = options.tempDirectory;
    if (options.memoryLimit) config.memory_limit = options.memoryLimit;
    const instance = await duckdb.DuckDBInstance.create(path, config);
    try {
      const pending = new PendingRows();
      const writer = new ConnectionSql(await instance.connect(), pending, options.observeWrites);
      await migrate(writer, options.migrations ?? defaultMigrations);
      const readers: ConnectionSql[] = [];
      for (let i = 0; i < (options.readers ?? 4); i++) readers.push(new ConnectionSql(await instance.connect(), pending));
      const store = new DuckDBStore(instance, writer, readers, path, options.rollUpMs ?? 1000);
      await store.rollUpLeftPending();
      return store;
    } catch (error) {
      instance.closeSync();
      throw error;
    }
  }

  /** Runs read-only SQL on a pooled connection. */
  async read<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    this.assertOpen();
    const sql = this.idle.pop() ?? (await new Promise<ConnectionSql>((resolve) => this.waiting.push(resolve)));
    try {
      return await fn(sql);
    } finally {
      const next = this.waiting.shift();
      if (next) next(sql);
      else this.idle.push(sql);
    }
  }

  /** Runs `fn` in a transaction of the writer connection; resolves after its COMMIT, rolls back if it throws. */
  transaction<T>(fn: (sql: Sql) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    this.assertOpen();
    return this.writes.run(() => this.run(fn, options.moreToCome));
  }

  /**
   * The next id for a table. Ids are allocated by this process, which alone holds the file, so the
   * large event tables need no primary-key index (docs/store-engines.md#ids-allocated-in-process).
   */
  async nextId(sql: Sql, table: string, count = 1): Promise<number> {
    let next = this.nextIds.get(table);
    if (next === undefined) {
      const row = await sql.one<{ max_id: number | null }>(`SELECT max(id) AS max_id FROM ${table}`);
      next = (row?.max_id ?? 0) + 1;
    }
    this.nextIds.set(table, next + count);
    return next;
  }

  /**
   * The first of `count` ids of a table for rows appended outside the writer's transactions (the
   * demo loader's, which rolls them up itself): past every pending range, which must never cover
   * them (docs/rollups.md#pending-rows).
   */
  reserveIds(table: string, count: number): Promise<number> {
    return this.transaction(async (sql) => {
      const next = Math.max(await this.nextId(sql, table, 0), this.writer.pending.end(table) + 1);
      this.nextIds.set(table, next + count);
      return next;
    });
  }

  /**
   * Primes the counters of some tables, then hands out the first of `count` consecutive ids of a
   * table synchronously, inside the transaction that primed them or after it: only this process
   * allocates ids, so nothing needs reserving and `needs` only names the tables.
   */
  async idAllocator(sql: Sql, needs: Readonly<Record<string, number>>): Promise<IdAllocator> {
    for (const table of Object.keys(needs)) await this.nextId(sql, table, 0);
    return (table, count = 1) => {
      const next = this.nextIds.get(table)!;
      this.nextIds.set(table, next + count);
      return next;
    };
  }

  /** The demo loader's bulk transaction: the appender, then the program's rollups built from its rows (docs/rollups.md#bulk-loads). */
  async bulkLoad<T>(programId: number, fn: (load: BulkLoad) => Promise<T>): Promise<T> {
    return (await import('./demo-loader-duckdb.js')).AppenderLoad.run(this, programId, fn);
  }

  /** DuckDB writes the export's file itself. */
  exportTo(query: ExportQuery, onProgress?: (fraction: number) => void): Promise<number> {
    return this.copyTo(query.select, query.params, query.path, query.options, onProgress);
  }

  /** One writer: a write transaction of its own. */
  autocommit<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return this.transaction(fn);
  }

  /** A snapshot of the database file; an in-memory database has none. */
  async backup(target: string): Promise<void> {
    if (this.path === ':memory:') throw new BackupError('An in-memory database has no file to back up');
    await this.snapshot(target);
  }

  /** A connection of its own for bulk loads (the appender); the caller closes it. */
  async bulkConnection(): Promise<DuckDBConnection> {
    this.assertOpen();
    return this.instance.connect();
  }

  /**
   * Writes the rows of `select` to the file at `path` with DuckDB's COPY, on a connection of its
   * own so that a long export holds none of the readers; answers the number of rows. Instants are
   * written in UTC whatever the machine's time zone. `onProgress` receives the fraction done, about
   * every 100 ms, while the statement runs (docs/exports.md#how-an-export-is-built).
   */
  async copyTo(select: string, params: Params, path: string, options: string, onProgress?: (fraction: number) => void): Promise<number> {
    this.assertOpen();
    const connection = await this.instance.connect();
    const poll = onProgress && setInterval(() => connection.progress.percentage >= 0 && onProgress(connection.progress.percentage / 100), 100);
    try {
      await connection.run("SET TimeZone = 'UTC'");
      if (onProgress) await connection.run('SET enable_progress_bar = true; SET enable_progress_bar_print = false');
      const result = await connection.run(`COPY (${select}) TO '${path.replaceAll("'", "''")}' (${options})`, bind(params));
      const [[rows]] = await result.getRows();
      return Number(rows);
    } finally {
      if (poll) clearInterval(poll);
      connection.closeSync();
    }
  }

  /**
   * A consistent copy of the database file at `target` (docs/operations.md#backup-and-restore): in
   * the writer's queue, so no transaction commits meanwhile, a CHECKPOINT moves the WAL into the
   * file, which is then copied as it is. Reads go on; writes wait for the copy. Should DuckDB have
   * left a WAL, it is copied beside (`target`.wal): the two are the same state, which opening the
   * copy replays.
   */
  async snapshot(target: string): Promise<void> {
    this.assertOpen();
    await this.writes.run(async () => {
      await this.endOpened();
      await this.writer.run('CHECKPOINT');
      await copyFile(this.path, target);
      await copyFile(`${this.path}.wal`, `${target}.wal`).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    });
  }

  /**
   * Waits for queued transactions, rolls the pending rows up (should that fail, they stay pending
   * in the file, for the next open), then checkpoints and closes the instance.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    clearTimeout(this.rollUpTimer);
    await this.rollUp().catch(() => {});
    await this.writes.settled();
    this.closed = true;
    try {
      await this.endOpened();
      await this.writer.run('CHECKPOINT');
    } finally {
      for (const reader of this.idle) reader.close();
      this.writer.close();
      this.instance.closeSync();
    }
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }

  private async run<T>(fn: (sql: Sql) => Promise<T>, moreToCome?: () => boolean): Promise<T> {
    try {
      if (this.opened) this.opened = false;
      else await this.writer.run('BEGIN TRANSACTION');
      const value = await fn(this.writer);
      await this.writer.recordPending();
      // A transaction asked for meanwhile, or about to be, is opened with this COMMIT: DuckDB takes
      // its snapshot at its first statement, so it sees all that this one wrote (docs/store-engines.md#the-next-transaction-opens-with-the-commit).
      const openNext = this.writes.waiting > 0 || (moreToCome?.() ?? false);
      await this.writer.run(openNext ? 'COMMIT; BEGIN TRANSACTION' : 'COMMIT');
      this.opened = openNext;
      this.writer.pending.commit();
      for (const effect of this.writer.takeEffects()) effect();
      this.scheduleRollUp();
      return value;
    } catch (error) {
      await this.rollback();
      throw error;
    }
  }

  /**
   * Rolls the pending rows up in a while, or at once when there are many of them; the writes
   * meanwhile pay nothing for the rollups but the pending ranges (docs/rollups.md#pending-rows).
   */
  private scheduleRollUp(): void {
    const rows = this.writer.pending.rows;
    if (rows === 0 || this.rollUpQueued) return;
    if (rows < ROLL_UP_ROWS) {
      this.rollUpTimer ??= setTimeout(() => this.queueRollUp(), this.rollUpMs).unref();
      return;
    }
    this.queueRollUp();
  }

  /**
   * A roll-up transaction in the writers' queue. One that fails leaves the rows pending, where
   * reports still read them, for the next roll-up to add.
   */
  private queueRollUp(): void {
    clearTimeout(this.rollUpTimer);
    this.rollUpTimer = undefined;
    if (this.closed || this.rollUpQueued) return;
    this.rollUpQueued = true;
    this.rollUp()
      .catch(() => {})
      .finally(() => {
        this.rollUpQueued = false;
      });
  }

  /** Rolls up the rows a process left pending (it stopped before their roll-up), in a schema that has them. */
  private async rollUpLeftPending(): Promise<void> {
    if (!(await this.writer.one("SELECT 1 FROM duckdb_tables() WHERE table_name = 'rollups_pending'"))) return;
    if (await this.writer.one('SELECT 1 FROM rollups_pending LIMIT 1')) await this.rollUp();
  }

  /** Adds the pending rows' sums to the rollups now, in the writers' queue (docs/rollups.md#pending-rows). */
  rollUp(): Promise<void> {
    this.assertOpen();
    return this.writes.run(() => this.addPending());
  }

  /** Adds the pending rows' sums to the rollups and empties rollups_pending, in one transaction. */
  private async addPending(): Promise<void> {
    await this.run(async (sql) => {
      for (const statement of ROLL_UP_PENDING) await sql.run(statement);
    });
    this.writer.pending.clear();
  }

  /** Ends the transaction the last COMMIT opened for a next one that did not come (it wrote nothing). */
  private async endOpened(): Promise<void> {
    if (!this.opened) return;
    this.opened = false;
    await this.writer.run('ROLLBACK');
  }

  private async rollback(): Promise<void> {
    this.writer.pending.discard();
    this.writer.takeEffects();
    try {
      await this.writer.connection.run('ROLLBACK');
    } catch {
      // No transaction was open (BEGIN itself failed, or COMMIT already ended it).
    }
  }
}

async function migrate(sql: ConnectionSql, migrations: readonly Migration[]): Promise<void> {
  const applied = await applyMigrations(sql, (text) => sql.runScript(text), migrations);
  // DDL should not live only in the WAL (docs/store-engines.md#duckdb-facts-the-design-relies-on).
  if (applied > 0) await sql.run('CHECKPOINT');
}
