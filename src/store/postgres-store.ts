import { createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomInt } from 'node:crypto';
import pg from 'pg';
import { to as copyToStdout } from 'pg-copy-streams';
import { DayParam, list, ListParam, type Columns, type ColumnType, type IdAllocator, type Param, type Params, type Row, type Sql, type StatementObserver, type Store, type TransactionOptions } from './db.js';
import { SerialQueue } from './serial-queue.js';
import { applyMigrations, type Migration } from './migrations/index.js';
import { postgresMigrations } from './migrations/postgres.js';
import { BackupError, POSTGRES_BACKUP } from './backup.js';
import type { BulkLoad } from './demo-loader.js';
import type { ExportQuery } from './exports.js';
import { appendWithRollups, refuseRolledUp, rollsUp, updateText, writeWithRollups, type Update } from './rollups.js';

/*
 * The PostgreSQL engine (docs/store-engines.md#postgresql): any number of processes share one database.
 * Each process writes as the DuckDB store does, one transaction at a time on its writer connection,
 * and every write transaction is SERIALIZABLE: PostgreSQL then guarantees that the transactions
 * of all instances have the effect of some serial order, which is the guarantee the one DuckDB
 * writer gives by construction. A transaction that loses a conflict is rolled back and run again.
 */

/** PostgreSQL's type ids the store parses itself (pg_type.oid). */
const OID = { INT8: 20, NUMERIC: 1700, DATE: 1082, TIMESTAMP: 1114, INT8_ARRAY: 1016 } as const;

/** 'YYYY-MM-DD HH:MM:SS[.ffffff]' of a TIMESTAMP column, which holds UTC, as a Date. */
const parseTimestamp = (text: string) => new Date(`${text.replace(' ', 'T')}Z`);

/**
 * Values come back as the DuckDB store hands them over: BIGINT as a number, a sum of money
 * (numeric, DuckDB's HUGEINT) as a bigint when whole, TIMESTAMP and DATE as Dates in UTC.
 */
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) => {
    switch (oid) {
      case OID.INT8:
        return Number;
      case OID.NUMERIC:
        return (text: string) => (/^-?\d+$/.test(text) ? BigInt(text) : Number(text));
      case OID.DATE:
        return (text: string) => new Date(`${text}T00:00:00Z`);
      case OID.TIMESTAMP:
        return parseTimestamp;
      case OID.INT8_ARRAY:
        return (text: string) => (text === '{}' ? [] : text.slice(1, -1).split(',').map(Number));
      default:
        return pg.types.getTypeParser(oid, format as 'text');
    }
  }) as pg.CustomTypesConfig['getTypeParser'],
};

const isoDay = (at: Date) => at.toISOString().slice(0, 10);

function toPg(value: Param): unknown {
  if (value instanceof Date) return value.toISOString(); // a TIMESTAMP ignores the zone: the UTC wall time is stored
  if (value instanceof ListParam) return value.values.map(toPg);
  if (value instanceof DayParam) return isoDay(value.at);
  if (typeof value === 'bigint') return value.toString();
  return value;
}

/**
 * The text with its parameters written in as literals, for COPY, which takes none: an untyped
 * quoted literal takes its type from where it is used, as an untyped parameter does.
 */
function inline(text: string, params: Params): string {
  return text.replace(/\$(\d+)/g, (_, n: string) => {
    const value = params[Number(n) - 1];
    if (value instanceof ListParam) throw new Error('a list parameter cannot be written into COPY');
    const pgValue = toPg(value);
    return pgValue === null ? 'NULL' : `'${String(pgValue).replaceAll("'", "''")}'`;
  });
}

/** A query whose rows COPY writes to a file as CSV. */
export type CopyOut = { sql: string; params: Params; path: string };

const ARRAY_TYPE: Record<ColumnType, string> = {
  BIGINT: 'BIGINT[]',
  VARCHAR: 'VARCHAR[]',
  BOOLEAN: 'BOOLEAN[]',
  TIMESTAMP: 'TIMESTAMP[]',
  DATE: 'DATE[]',
};

function columnValue(type: ColumnType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'DATE') return isoDay(value as Date);
  if (type === 'TIMESTAMP') return (value as Date).toISOString();
  return value;
}

/** Serialization failures and deadlocks: the transaction is rolled back and run again. */
const RETRIED_CODES = new Set(['40001', '40P01']);
const MAX_ATTEMPTS = 30;

/** Names of prepared statements, by text, shared by every connection (each prepares a name once). */
const statementNames = new Map<string, string>();
const statementName = (text: string) => {
  let name = statementNames.get(text);
  if (name === undefined) statementNames.set(text, (name = `pk${statementNames.size + 1}`));
  return name;
};

const NONE_PENDING: ReadonlySet<string> = new Set();

class ClientSql<C extends pg.ClientBase = pg.Client> implements Sql {
  /** webhook_events' serial column. */
  readonly arrival = 'seq';
  private effects: Array<() => void> = [];
  constructor(
    readonly client: C,
    /** The process's writer id, which keys its rollup rows (docs/rollups.md#what-they-hold). */
    private readonly writerId: number,
    private readonly observe?: StatementObserver,
  ) {}

  afterCommit(effect: () => void): void {
    this.effects.push(effect);
  }

  /** The effects of the transaction that ended, for the store to run (committed) or drop (rolled back). */
  takeEffects(): Array<() => void> {
    return this.effects.splice(0);
  }

  private async query(text: string, params: Params): Promise<pg.QueryResult> {
    const started = this.observe && performance.now();
    try {
      // Without parameters a text may hold several statements (the simple protocol); with them, a
      // named statement is parsed and planned once per connection.
      if (params.length === 0) return await this.client.query(text);
      return await this.client.query({ name: statementName(text), text, values: params.map(toPg) });
    } finally {
      if (started !== undefined) this.observe!(text, performance.now() - started);
    }
  }

  async all<T = Row>(sql: string, params: Params = []): Promise<T[]> {
    return (await this.query(sql, params)).rows as T[];
  }

  async one<T = Row>(sql: string, params: Params = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }

  async run(sql: string, params: Params = []): Promise<void> {
    refuseRolledUp(sql);
    await this.query(sql, params);
  }

  /** A migration's script, which may rewrite events before a later one rebuilds their rollups. */
  async runScript(sql: string): Promise<void> {
    await this.query(sql, []);
  }

  /** The UPDATE and the rollups of the rows it changes, in one statement (docs/rollups.md#how-writes-keep-them). */
  async write(update: Update, params: Params = []): Promise<void> {
    if (!rollsUp(update.table)) return this.run(updateText(update), params);
    await this.query(writeWithRollups(update, `$${params.length + 1}`), [...params, this.writerId]);
  }

  /**
   * PostgreSQL's transaction-scoped advisory locks of two keys: the class, then each key's low 32
   * bits; taken in key order (docs/store-engines.md).
   */
  async lockKeys(space: number, keys: readonly number[]): Promise<void> {
    if (keys.length === 0) return;
    await this.query(
      `SELECT pg_advisory_xact_lock($2, key) FROM (SELECT DISTINCT (h % 4294967296 - 2147483648)::INTEGER AS key FROM unnest($1::BIGINT[]) AS h ORDER BY key) AS keys`,
      [list(keys), space],
    );
  }

  /** Rows are rolled up by the statement that writes them: none is ever pending. */
  withPendingTables<T>(fn: (tables: ReadonlySet<string>) => Promise<T>): Promise<T> {
    return fn(NONE_PENDING);
  }

  /**
   * One INSERT of every row: each column goes over as one array parameter, unnested back into rows;
   * the rows' rollups are summed from what it returns, in the same statement.
   */
  async append<R extends object>(table: string, columns: Columns<R>, rows: readonly R[]): Promise<void> {
    if (rows.length === 0) return;
    const names = columns.map(([name]) => name).join(', ');
    const arrays = columns.map(([, type], i) => `$${i + 1}::${ARRAY_TYPE[type]}`).join(', ');
    const values: unknown[] = columns.map(([name, type]) => rows.map((row) => columnValue(type, row[name])));
    let text = `INSERT INTO ${table} (${names}) SELECT * FROM unnest(${arrays})`;
    if (rollsUp(table)) {
      text = appendWithRollups(table, text, `$${values.length + 1}`);
      values.push(this.writerId);
    }
    const started = this.observe && performance.now();
    try {
      await this.client.query({ name: statementName(text), text, values });
    } finally {
      if (started !== undefined) this.observe!(`APPEND ${table}`, performance.now() - started);
    }
  }
}

export type PostgresStoreOptions = {
  /** Reader connections (docs/store-engines.md#connections-and-ids-on-postgresql). */
  readers?: number;
  migrations?: readonly Migration[];
  /** Sees every statement of the writer connection. */
  observeWrites?: StatementObserver;
};

/**
 * Every connection works in UTC and writes dates as YYYY-MM-DD (ISO, as DuckDB does), whatever
 * the server's or the role's default, and without JIT compilation, which took 2.3 s to save
 * milliseconds on a report's plan (docs/store-engines.md); `options` given in the URL (e.g.
 * `-c search_path=…`) are kept beside them.
 */
function connectionOptions(url: string): pg.ClientConfig {
  const parsed = new URL(url);
  const options = [parsed.searchParams.get('options'), '-c TimeZone=UTC -c jit=off -c DateStyle=ISO'].filter(Boolean).join(' ');
  parsed.searchParams.delete('options');
  return { connectionString: parsed.toString(), types, options };
}

/** The lock every instance takes while it applies migrations: they run once, one instance at a time. */
const MIGRATION_LOCK = 7_146_281_937;

/**
 * A PostgreSQL database shared with any number of other processes: reads on a pool, writes one
 * transaction at a time on this process's writer connection, ids from the database's counters.
 */
export class PostgresStore implements Store {
  readonly engine = 'postgres';
  readonly shared = true;
  private readonly writes = new SerialQueue();
  private closed = false;
  /** The ids reserved by the transaction running now, whose unused ones go back at its end. */
  private reserved: Array<Map<string, { next: number; end: number }>> = [];

  private constructor(
    private readonly url: string,
    /**
     * This process's writer id, picked at random at open: its rollup rows are keyed by it, so no
     * other instance ever updates them (docs/rollups.md#what-they-hold).
     */
    readonly writerId: number,
    private readonly readers: pg.Pool,
    /** Takes ids in statements of their own, outside every transaction, as a sequence does. */
    private readonly ids: pg.Pool,
    /** Runs autocommit(): one connection, so its callers' statements go one at a time. */
    private readonly autocommitted: pg.Pool,
    /** The writer connection; undefined after it broke, until the next transaction connects again. */
    private writer: ClientSql | undefined,
    private readonly observeWrites?: StatementObserver,
  ) {}

  static async open(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
    const writerId = randomInt(1, 2 ** 48); // 0 is the rows built in bulk (rollups.ts)
    const writer = await connect(url, writerId, options.observeWrites);
    try {
      await migrate(writer, options.migrations ?? postgresMigrations);
    } catch (error) {
      await writer.client.end();
      throw error;
    }
    const readers = new pg.Pool({ ...connectionOptions(url), max: options.readers ?? 4 });
    const ids = new pg.Pool({ ...connectionOptions(url), max: 1 });
    const autocommitted = new pg.Pool({ ...connectionOptions(url), max: 1 });
    // An idle pooled connection that drops is replaced on the next checkout; the error is not the caller's.
    for (const pool of [readers, ids, autocommitted]) pool.on('error', () => {});
    return new PostgresStore(url, writerId, readers, ids, autocommitted, writer, options.observeWrites);
  }

  read<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return this.pooled(this.readers, fn);
  }

  /**
   * Runs `fn` on a connection of its own, outside every transaction: each statement commits by
   * itself, and waits for no write transaction. For the rate limits' counters (docs/store-engines.md#rate-limits-across-instances).
   */
  autocommit<T>(fn: (sql: Sql) => Promise<T>): Promise<T> {
    return this.pooled(this.autocommitted, fn);
  }

  private async pooled<T>(pool: pg.Pool, fn: (sql: Sql) => Promise<T>): Promise<T> {
    this.assertOpen();
    const client = await pool.connect();
    try {
      return await fn(new ClientSql<pg.PoolClient>(client, this.writerId));
    } finally {
      client.release();
    }
  }

  transaction<T>(fn: (sql: Sql) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    this.assertOpen();
    return this.writes.run(() => this.run(fn, options.isolation ?? 'serializable'));
  }

  /** The first of `count` consecutive ids: one counter row per table, advanced in a statement of its own. */
  async nextId(_sql: Sql, table: string, count = 1): Promise<number> {
    const { rows } = await this.ids.query<{ first: number }>(
      'UPDATE id_counters SET next = next + $2 WHERE name = $1 RETURNING next - $2 AS first',
      [table, count],
    );
    if (rows.length === 0) throw new Error(`no id counter for ${table}`);
    return rows[0].first;
  }

  /** Reserves every table's ids in one statement; ids reserved and not used are left as gaps. */
  async idAllocator(_sql: Sql, needs: Readonly<Record<string, number>>): Promise<IdAllocator> {
    const tables = Object.keys(needs).filter((table) => needs[table] > 0);
    const ranges = new Map<string, { next: number; end: number }>();
    if (tables.length > 0) {
      const { rows } = await this.ids.query<{ name: string; first: number }>(
        `UPDATE id_counters c SET next = c.next + n.count FROM unnest($1::VARCHAR[], $2::BIGINT[]) AS n(name, count)
         WHERE c.name = n.name RETURNING c.name, c.next - n.count AS first`,
        [tables, tables.map((table) => needs[table])],
      );
      for (const { name, first } of rows) ranges.set(name, { next: first, end: first + needs[name] });
      this.reserved.push(ranges);
    }
    return (table, count = 1) => {
      const range = ranges.get(table);
      if (!range || range.next + count > range.end) throw new Error(`more ${table} ids taken than reserved`);
      const first = range.next;
      range.next += count;
      return first;
    };
  }

  /**
   * Gives back the ids a transaction reserved and did not use, when no other reservation came
   * after them (compare and set), so one instance alone leaves no gaps; once it decided its rows the
   * transaction takes no more ids, whether it then commits or not.
   */
  private async releaseUnused(): Promise<void> {
    const unused = this.reserved.flatMap((ranges) => [...ranges].filter(([, r]) => r.next < r.end));
    this.reserved = [];
    if (unused.length === 0) return;
    await this.ids.query(
      `UPDATE id_counters c SET next = u.next FROM unnest($1::VARCHAR[], $2::BIGINT[], $3::BIGINT[]) AS u(name, next, "end")
       WHERE c.name = u.name AND c.next = u."end"`,
      [unused.map(([name]) => name), unused.map(([, r]) => r.next), unused.map(([, r]) => r.end)],
    );
  }

  /**
   * Writes each query's rows to its file as CSV (`COPY (…) TO STDOUT`), all read in one snapshot:
   * a REPEATABLE READ READ ONLY transaction on a connection of its own, so that a long export holds
   * none of the readers. Dates and instants are written in ISO form, whatever the server's
   * DateStyle. `onProgress` receives the share of rows written against the planner's estimate of
   * them, at most 1 (docs/store-engines.md#exports-from-postgresql).
   */
  async copyOut(queries: readonly CopyOut[], onProgress?: (fraction: number) => void): Promise<void> {
    this.assertOpen();
    const { client } = await connect(this.url, this.writerId);
    try {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET LOCAL DateStyle = 'ISO, YMD'");
      const texts = queries.map(({ sql, params }) => inline(sql, params));
      let estimated = 0;
      for (const text of onProgress ? texts : []) {
        const { rows } = await client.query<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(`EXPLAIN (FORMAT JSON) ${text}`);
        estimated += rows[0]['QUERY PLAN'][0].Plan['Plan Rows'];
      }
      let written = 0;
      for (const [i, text] of texts.entries()) {
        // Rows end in a newline; one inside a quoted value only moves the bar a row early.
        const count = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            if (onProgress) {
              for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) written++;
              onProgress(Math.min(1, written / Math.max(1, estimated)));
            }
            done(null, chunk);
          },
        });
        await pipeline(client.query(copyToStdout(`COPY (${text}) TO STDOUT (FORMAT csv)`)), count, createWriteStream(queries[i].path));
      }
      await client.query('COMMIT');
    } finally {
      await client.end();
    }
  }

  /** The demo loader's bulk transaction: COPY, then the program's rollups built from its rows (docs/rollups.md#bulk-loads). */
  async bulkLoad<T>(programId: number, fn: (load: BulkLoad) => Promise<T>): Promise<T> {
    return (await import('./demo-loader-postgres.js')).CopyLoad.run(this, programId, fn);
  }

  /** Stages the rows the export reads in DuckDB, which writes the file. */
  async exportTo(query: ExportQuery, onProgress?: (fraction: number) => void): Promise<number> {
    return (await import('./exports.js')).copyFromPostgres(this, query, onProgress);
  }

  /** The database's own tools back it up. */
  async backup(): Promise<void> {
    throw new BackupError(POSTGRES_BACKUP);
  }

  /** Every statement that writes rolls up in itself: nothing is ever pending. */
  async rollUp(): Promise<void> {}

  /** A connection of its own for bulk loads (COPY), outside the writer's queue; the caller ends it. */
  async bulkConnection(): Promise<pg.Client> {
    this.assertOpen();
    const client = new pg.Client(connectionOptions(this.url));
    client.on('error', () => {}); // a broken connection fails the load's next query
    await client.connect();
    return client;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.writes.settled();
    this.closed = true;
    await Promise.allSettled([this.readers.end(), this.ids.end(), this.autocommitted.end(), this.writer?.client.end()]);
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }

  private async run<T>(fn: (sql: Sql) => Promise<T>, isolation: Required<TransactionOptions>['isolation']): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      let writer: ClientSql | undefined;
      try {
        writer = this.writer ??= await connect(this.url, this.writerId, this.observeWrites);
        await writer.run(`BEGIN ISOLATION LEVEL ${isolation.toUpperCase()}`);
        const value = await fn(writer);
        await this.releaseUnused();
        await writer.run('COMMIT');
        for (const effect of writer.takeEffects()) effect();
        return value;
      } catch (error) {
        this.reserved = [];
        writer?.takeEffects();
        if (writer) await this.rollback(writer);
        if (attempt < MAX_ATTEMPTS && RETRIED_CODES.has((error as { code?: string }).code ?? '')) {
          await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)));
          continue;
        }
        throw error;
      }
    }
  }

  /** Rolls back; a writer whose connection broke is dropped, and the next transaction connects again. */
  private async rollback(writer: ClientSql): Promise<void> {
    try {
      await writer.client.query('ROLLBACK');
    } catch {
      if (this.writer === writer) this.writer = undefined;
      writer.client.end().catch(() => {});
    }
  }
}

async function connect(url: string, writerId: number, observe?: StatementObserver): Promise<ClientSql> {
  const client = new pg.Client(connectionOptions(url));
  client.on('error', () => {}); // a broken connection fails its next query, which rolls back and reconnects
  await client.connect();
  return new ClientSql(client, writerId, observe);
}

async function migrate(sql: ClientSql, migrations: readonly Migration[]): Promise<void> {
  await sql.run(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
  try {
    await applyMigrations(sql, (text) => sql.runScript(text), migrations);
  } finally {
    await sql.run(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`);
  }
}
