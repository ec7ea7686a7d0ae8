import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { summarize, tempDir, type Summary } from './lib.js';
import { NOW, type DataSet } from './report.js';
import { reportWindow } from '../src/domain/performance.js';
import { DuckDBStore } from '../src/store/duckdb-store.js';
import { previewByPartner } from '../src/store/preview.js';
import { performance as performanceSql } from '../src/store/reports.js';

export type PreviewFigures = { sales: number; own: number; preview: Summary; report: Summary };

/** The sales the preview's target speaks of: the data set's are copied until it holds this many. */
export const PREVIEW_SALES = 1_000_000;

/**
 * The rule preview's statement (docs/groups.md#rule-preview) over every sale of the reports' data
 * set (period all, 20 % on each sale, renewals for one month), beside the performance report of
 * the same period on the same connection, one run of each in turn so a slow spell of this shared
 * machine weighs on both. The data set's sales, commissions and refunds are copied under new ids
 * until it holds PREVIEW_SALES sales, and rolled up, so both statements read them.
 */
export async function benchPreview({ dataDir, programId }: DataSet, runs = 20): Promise<PreviewFigures> {
  const copy = tempDir('preview');
  const file = join(copy.path, 'partnerkit.duckdb');
  copyFileSync(join(dataDir, 'partnerkit.duckdb'), file);
  const store = await DuckDBStore.open(file);
  try {
    const own = await copySales(store, programId, PREVIEW_SALES);
    const { created_at: created, sales } = (await store.read((sql) =>
      sql.one<{ created_at: Date; sales: number }>('SELECT created_at, (SELECT count(*) FROM sale_events WHERE program_id = $1) AS sales FROM programs WHERE id = $1', [programId]),
    ))!;
    const window = reportWindow({ period: 'all' }, new Date(NOW), created);
    const timed = async (run: () => Promise<unknown>) => {
      const started = performance.now();
      await run();
      return performance.now() - started;
    };
    const preview = () => store.read((sql) => previewByPartner(sql, programId, window.from, window.to, { type: 'percent', value: 2000, recurringMonths: 1 }));
    const report = () => store.read((sql) => performanceSql(sql, programId, window));
    await preview();
    await report();
    const [p, r]: number[][] = [[], []];
    for (let i = 0; i < runs; i++) {
      p.push(await timed(preview));
      r.push(await timed(report));
    }
    return { sales: Number(sales), own, preview: summarize(p), report: summarize(r) };
  } finally {
    await store.close();
    copy.remove();
  }
}

/**
 * Adds copies of the program's sales, with their commissions and refunds, under new ids (the
 * copy j of a row of id i is i + j × the table's highest id; the last copy takes only the first
 * sales it needs) until the program has `count` sales; records the copies as pending rows and
 * rolls them up as the server would. Answers how many sales the program had of its own.
 */
async function copySales(store: DuckDBStore, programId: number, count: number): Promise<number> {
  const connection = await store.bulkConnection();
  let copies = 0;
  let sales = 0;
  try {
    const one = async (sql: string, params: number[] = []) => Number((await connection.runAndReadAll(sql, params)).getRows()[0]![0] ?? 0);
    sales = await one('SELECT count(*) FROM sale_events WHERE program_id = $1', [programId]);
    if (sales === 0 || sales >= count) return sales;
    const top = { sale_events: 0, commissions: 0, refunds: 0 };
    for (const table of Object.keys(top) as Array<keyof typeof top>) top[table] = await one(`SELECT coalesce(max(id), 0) FROM ${table}`);
    const shifted: Record<keyof typeof top, (j: number) => string> = {
      sale_events: (j) => `id + ${j * top.sale_events} AS id, transaction_id || '#${j}' AS transaction_id`,
      commissions: (j) => `id + ${j * top.commissions} AS id, sale_id + ${j * top.sale_events} AS sale_id`,
      refunds: (j) => `id + ${j * top.refunds} AS id, refund_key || '#${j}' AS refund_key, sale_id + ${j * top.sale_events} AS sale_id`,
    };
    // The rows of the sales up to id `last`: the originals only, as every copy's ids are above them.
    const of: Record<keyof typeof top, (last: number) => string> = {
      sale_events: (last) => `program_id = $1 AND id <= ${last}`,
      commissions: (last) => `program_id = $1 AND sale_id <= ${last}`,
      refunds: (last) => `program_id = $1 AND sale_id <= ${last}`,
    };
    await connection.run('BEGIN TRANSACTION');
    for (let left = count - sales; left > 0; left -= Math.min(left, sales)) {
      copies++;
      const last = left >= sales ? top.sale_events : await one('SELECT id FROM sale_events WHERE program_id = $1 ORDER BY id LIMIT 1 OFFSET $2', [programId, left - 1]);
      for (const table of Object.keys(top) as Array<keyof typeof top>) {
        await connection.run(`INSERT INTO ${table} SELECT * REPLACE (${shifted[table](copies)}) FROM ${table} WHERE ${of[table](last)}`, [programId]);
      }
    }
    for (const table of Object.keys(top) as Array<keyof typeof top>) {
      if (top[table] > 0) await connection.run(`INSERT INTO rollups_pending VALUES ('${table}', ${top[table] + 1}, ${(copies + 1) * top[table]})`);
    }
    await connection.run('COMMIT');
  } finally {
    connection.closeSync();
  }
  await store.rollUp();
  return sales;
}
