import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { summarize, tempDir, type Summary } from './lib.js';
import { NOW, type DataSet } from './report.js';
import { reportWindow } from '../src/domain/performance.js';
import { openStore } from '../src/store/open.js';
import { previewByPartner } from '../src/store/preview.js';
import { performance as performanceSql } from '../src/store/reports.js';

export type PreviewFigures = { sales: number; preview: Summary; report: Summary };

/**
 * The rule preview's statement (docs/groups.md#rule-preview) over every sale of the reports' data
 * set (period all, 20 % on each sale), beside the performance report of the same period on the same
 * connection, one run of each in turn so a slow spell of this shared machine weighs on both.
 */
export async function benchPreview({ dataDir, programId }: DataSet, runs = 20): Promise<PreviewFigures> {
  const copy = tempDir('preview');
  copyFileSync(join(dataDir, 'partnerkit.duckdb'), join(copy.path, 'partnerkit.duckdb'));
  const store = await openStore({ duckdb: join(copy.path, 'partnerkit.duckdb') });
  try {
    const { created_at: created, sales } = (await store.read((sql) =>
      sql.one<{ created_at: Date; sales: number }>('SELECT created_at, (SELECT count(*) FROM sale_events WHERE program_id = $1) AS sales FROM programs WHERE id = $1', [programId]),
    ))!;
    const window = reportWindow({ period: 'all' }, new Date(NOW), created);
    const timed = async (run: () => Promise<unknown>) => {
      const started = performance.now();
      await run();
      return performance.now() - started;
    };
    const preview = () => store.read((sql) => previewByPartner(sql, programId, window.from, window.to, { type: 'percent', value: 2000 }));
    const report = () => store.read((sql) => performanceSql(sql, programId, window));
    await preview();
    await report();
    const [p, r]: number[][] = [[], []];
    for (let i = 0; i < runs; i++) {
      p.push(await timed(preview));
      r.push(await timed(report));
    }
    return { sales: Number(sales), preview: summarize(p), report: summarize(r) };
  } finally {
    await store.close();
    copy.remove();
  }
}
