import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { epochDay, MS_PER_DAY } from '../days.js';
import type { BulkLoad, BulkRows, Value } from './demo-loader.js';
import type { PostgresStore } from './postgres-store.js';
import { BULK_WRITER, rollUpStored } from './rollups.js';

/** Rows per chunk of COPY text handed to the stream. */
const CHUNK_ROWS = 4096;

/** A value as COPY's text format writes it; NULL is \N. */
type Format = (value: Value) => string;

const NULL = '\\N';
const SPECIAL = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const escape = (text: string) => (SPECIAL.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]) : text);

const epochMs = (value: Value) => (value instanceof Date ? value.getTime() : (value as number));

// A load's instants fall on a few hundred days: each day's text is made once.
const dayTexts = new Map<number, string>();
const dayText = (day: number) => {
  let text = dayTexts.get(day);
  if (text === undefined) dayTexts.set(day, (text = new Date(day * MS_PER_DAY).toISOString().slice(0, 10)));
  return text;
};
const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** 'YYYY-MM-DD HH:MM:SS.mmm' in UTC, which a TIMESTAMP column stores. */
function timestampText(ms: number): string {
  const day = epochDay(ms);
  const inDay = ms - day * MS_PER_DAY;
  const seconds = Math.floor(inDay / 1000);
  return `${dayText(day)} ${pad(Math.floor(seconds / 3600), 2)}:${pad(Math.floor(seconds / 60) % 60, 2)}:${pad(seconds % 60, 2)}.${pad(inDay % 1000, 3)}`;
}

const FORMATS: Record<string, Format> = {
  'timestamp without time zone': (value) => timestampText(epochMs(value)),
  date: (value) => dayText(epochDay(epochMs(value))),
  boolean: (value) => (value ? 't' : 'f'),
};
const text: Format = (value) => escape(String(value));

/**
 * The demo loader's bulk path on PostgreSQL: one connection of its own and one transaction, each
 * part streamed with COPY FROM STDIN in text format (no statement per row, no parameters to bind),
 * and the program's rollups built from the loaded rows in one statement before the commit. A column
 * not given takes its default. The transaction is not SERIALIZABLE: it only adds rows of a new
 * program, under ids reserved from the counters, so it conflicts with no other instance's.
 */
export class CopyLoad implements BulkLoad {
  private readonly types = new Map<string, Map<string, string>>();

  /** The tables loaded into. */
  get tables(): string[] {
    return [...this.types.keys()];
  }

  private constructor(
    private readonly store: PostgresStore,
    private readonly client: pg.Client,
  ) {}

  static async run<T>(store: PostgresStore, programId: number, fn: (load: BulkLoad) => Promise<T>): Promise<T> {
    const client = await store.bulkConnection();
    try {
      await client.query('BEGIN');
      const load = new CopyLoad(store, client);
      const result = await fn(load);
      await client.query(rollUpStored('program_id = $1', String(BULK_WRITER)), [programId]);
      // The planner learns the tables' new sizes with the commit rather than at autovacuum's next round.
      await client.query(`ANALYZE ${[...load.tables, 'report_rollups'].join(', ')}`);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {}); // a broken connection rolls back by closing
      throw error;
    } finally {
      await client.end();
    }
  }

  reserve(table: string, count: number): Promise<number> {
    return this.store.transaction((sql) => this.store.nextId(sql, table, count));
  }

  async append({ table, columns, rowCount }: BulkRows): Promise<void> {
    if (rowCount === 0) return;
    const types = await this.columnTypes(table);
    const names = Object.keys(columns);
    const formats = names.map((name) => FORMATS[types.get(name) ?? ''] ?? text);
    const values = names.map((name) => columns[name]);
    function* chunks() {
      for (let offset = 0; offset < rowCount; offset += CHUNK_ROWS) {
        let chunk = '';
        for (let row = offset; row < Math.min(offset + CHUNK_ROWS, rowCount); row++) {
          for (let i = 0; i < names.length; i++) {
            const value = values[i][row];
            chunk += (i === 0 ? '' : '\t') + (value === null || value === undefined ? NULL : formats[i](value));
          }
          chunk += '\n';
        }
        yield chunk;
      }
    }
    await pipeline(Readable.from(chunks()), this.client.query(copyFrom(`COPY ${table} (${names.join(', ')}) FROM STDIN`)));
  }

  /** The table's columns with their types, as information_schema names them, in the search path's schema. */
  private async columnTypes(table: string): Promise<Map<string, string>> {
    let types = this.types.get(table);
    if (!types) {
      const { rows } = await this.client.query<{ name: string; type: string }>(
        'SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1',
        [table],
      );
      this.types.set(table, (types = new Map(rows.map((r) => [r.name, r.type]))));
    }
    return types;
  }
}
