import type { DuckDBAppender, DuckDBConnection, DuckDBType, DuckDBVector, DuckDBValue } from '@duckdb/node-api';
import { epochDay } from '../days.js';
import type { BulkLoad, BulkRows, Value } from './demo-loader.js';
import type { DuckDBStore } from './duckdb-store.js';
import { duckdb } from './duckdb.js';
import { BULK_WRITER, rollUpStored } from './rollups.js';

const CHUNK_ROWS = 2048; // DuckDB's vector size: the most rows a data chunk holds

const epochMs = (value: Value) => (value instanceof Date ? value.getTime() : (value as number));

/** Writes one JS value into a column vector; holders are reused because setItem copies at once. */
type Writer = (vector: DuckDBVector, row: number, value: Value) => void;

// Most BIGINT cells of a load repeat a few small values (program and enrollment ids): their bigints
// are made once instead of per cell.
const SMALL_BIGINTS: bigint[] = [];
const bigint = (n: number) => (n >= 0 && n < 65_536 ? (SMALL_BIGINTS[n] ??= BigInt(n)) : BigInt(n));

function writer(type: DuckDBType): Writer {
  if (type.typeId === duckdb.DuckDBTypeId.BIGINT) {
    return (vector, row, value) => vector.setItem(row, value === null ? null : bigint(value as number));
  }
  if (type.typeId === duckdb.DuckDBTypeId.TIMESTAMP) {
    const holder = new duckdb.DuckDBTimestampValue(0n);
    return (vector, row, value) => {
      if (value === null) return vector.setItem(row, null);
      (holder as { micros: bigint }).micros = BigInt(epochMs(value) * 1000); // exact: below 2^53 until the year 2255
      vector.setItem(row, holder);
    };
  }
  if (type.typeId === duckdb.DuckDBTypeId.DATE) {
    const holder = new duckdb.DuckDBDateValue(0);
    return (vector, row, value) => {
      if (value === null) return vector.setItem(row, null);
      (holder as { days: number }).days = epochDay(epochMs(value));
      vector.setItem(row, holder);
    };
  }
  return (vector, row, value) => vector.setItem(row, value as DuckDBValue);
}

/**
 * The demo loader's bulk path on DuckDB: one connection of its own and one transaction, so a failed
 * load leaves nothing behind; the program's rollups are built from the loaded rows before the commit
 * (docs/rollups.md#bulk-loads). Rows are appended a data chunk at a time, in the order given; callers
 * give them in (program_id, time) order so reports can skip row groups by their zone maps. A column
 * not given is NULL.
 */
export class AppenderLoad implements BulkLoad {
  private readonly columns = new Map<string, { names: string[]; types: DuckDBType[]; appender: DuckDBAppender }>();

  private constructor(
    private readonly store: DuckDBStore,
    private readonly connection: DuckDBConnection,
  ) {}

  /** Runs `fn` inside one bulk transaction; commits when it resolves, rolls back when it throws. */
  static async run<T>(store: DuckDBStore, programId: number, fn: (load: BulkLoad) => Promise<T>): Promise<T> {
    const connection = await store.bulkConnection();
    const load = new AppenderLoad(store, connection);
    try {
      await connection.run('BEGIN TRANSACTION');
      const result = await fn(load);
      load.closeAppenders();
      await connection.run(rollUpStored('program_id = $1', String(BULK_WRITER)), [BigInt(programId)]);
      await connection.run('COMMIT');
      return result;
    } catch (error) {
      try {
        load.closeAppenders();
      } catch {
        // The failed flush is the error being reported; the rollback below discards everything.
      }
      await connection.run('ROLLBACK');
      throw error;
    } finally {
      connection.closeSync();
    }
  }

  reserve(table: string, count: number): Promise<number> {
    return this.store.reserveIds(table, count);
  }

  /**
   * Appends the rows a data chunk at a time. Values go straight into each chunk's vectors: building
   * DuckDB value objects per cell first cost a third of a load.
   */
  async append({ table, columns, rowCount }: BulkRows): Promise<void> {
    const { names, types, appender } = await this.table(table);
    const writers = types.map(writer);
    for (let offset = 0; offset < rowCount; offset += CHUNK_ROWS) {
      const size = Math.min(CHUNK_ROWS, rowCount - offset);
      const chunk = duckdb.DuckDBDataChunk.create(types, size);
      names.forEach((name, i) => {
        const vector = chunk.getColumnVector(i);
        const column = columns[name];
        const write = writers[i];
        for (let row = 0; row < size; row++) write(vector, row, column === undefined ? null : column[offset + row]);
        vector.flush();
      });
      appender.appendDataChunk(chunk);
    }
  }

  private async table(table: string) {
    let entry = this.columns.get(table);
    if (!entry) {
      const reader = await this.connection.runAndReadAll(
        'SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position',
        [table],
      );
      const appender = await this.connection.createAppender(table);
      const names = reader.getRowObjectsJS().map((row) => String(row.column_name));
      const types = names.map((_, i) => appender.columnType(i));
      entry = { names, types, appender };
      this.columns.set(table, entry);
    }
    return entry;
  }

  private closeAppenders(): void {
    for (const { appender } of this.columns.values()) appender.closeSync();
    this.columns.clear();
  }
}
