import { statSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBStore } from '../src/store/duckdb-store.js';
import { copyTable } from '../src/store/exports.js';
import { summarize, tempDir, type Summary } from './lib.js';
import { NOW } from './report.js';

export type ExportFigures = { rows: number; export: Summary; rawCopy: Summary; exportMiB: number; rawMiB: number };

/**
 * The Parquet export of the demo's clicks (docs/architecture.md §17) beside a raw `COPY clicks TO …
 * (FORMAT parquet)` on the same store, in the same way (a connection of its own), `runs` times
 * each, interleaved so both see the same machine: the ceiling is DuckDB writing the table as it is,
 * without the partner join, the UTC instants and the program filter.
 */
export async function benchExports(dataDir: string, programId: number, runs = 3): Promise<ExportFigures> {
  const out = tempDir('export');
  const store = await DuckDBStore.open(join(dataDir, 'partnerkit.duckdb'));
  try {
    const exportPath = join(out.path, 'clicks.parquet');
    const rawPath = join(out.path, 'raw.parquet');
    const filter = { programId, from: null, to: null, includeTest: false, now: new Date(NOW) };
    const [exportMs, rawMs]: number[][] = [[], []];
    let rows = 0;
    for (let run = 0; run < runs; run++) {
      let started = performance.now();
      rows = await copyTable(store, 'clicks', filter, 'parquet', exportPath);
      exportMs.push(performance.now() - started);
      started = performance.now();
      await store.copyTo('SELECT * FROM clicks', [], rawPath, 'FORMAT parquet');
      rawMs.push(performance.now() - started);
    }
    const mib = (path: string) => statSync(path).size / 2 ** 20;
    return { rows, export: summarize(exportMs), rawCopy: summarize(rawMs), exportMiB: mib(exportPath), rawMiB: mib(rawPath) };
  } finally {
    await store.close();
    out.remove();
  }
}
