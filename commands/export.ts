import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Args, Flags } from '@oclif/core';
import { DATA_FORMATS, dataExportFileName, EXPORT_TABLES, type DataFormat, type ExportTable } from '../src/api/constants.js';
import type { DataExportQuery } from '../src/api/index.js';
import { PartnerkitCommand, sessionTokenFlag } from '../src/cli/base.js';
import { formatBytes, formatCount } from '../src/cli/output.js';
import { clockFromEnv } from '../src/clock.js';
import type { DataDir } from '../src/config.js';

const ignoreClosedPipe = (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
};

type Progress = { total(value: number): void; update(value: number): void; finish(): void; stop(): void };

export default class Export extends PartnerkitCommand {
  static override description =
    "Write one table of a program's data (clicks, customers, sales, commissions, refunds or payouts) to a CSV, JSON or Parquet file: money in cents and in currency units, instants in UTC, no secrets";
  static override examples = [
    '<%= config.bin %> export 1 --table sales',
    '<%= config.bin %> export 1 --table clicks --format parquet --from 2026-03-01 --to 2026-03-31',
    '<%= config.bin %> export 1 --table commissions --out commissions.json',
    '<%= config.bin %> export 1 --table customers --out - | head',
  ];
  static override args = { programId: Args.integer({ description: 'program id', required: true, min: 1 }) };
  static override flags = {
    table: Flags.string({ description: 'the table to write', options: [...EXPORT_TABLES], required: true }),
    format: Flags.string({ description: "file format (default: --out's extension, else csv)", options: [...DATA_FORMATS] }),
    from: Flags.string({ description: 'only rows from this date (whole UTC day) or ISO 8601 date-time on' }),
    to: Flags.string({ description: 'only rows up to this date (whole UTC day) or ISO 8601 date-time' }),
    'include-test': Flags.boolean({ description: 'also test clicks, test sales and test refunds (is_test true)' }),
    out: Flags.string({ description: 'file to write, - for stdout (default program-<id>-<table>.<format>)' }),
    'session-token': sessionTokenFlag,
  };

  async run() {
    const { args, flags } = await this.parse(Export);
    const fromExtension = DATA_FORMATS.find((f) => flags.out !== undefined && extname(flags.out) === `.${f}`);
    const format = (flags.format ?? fromExtension ?? 'csv') as DataFormat;
    const table = flags.table as ExportTable;
    const out = flags.out ?? dataExportFileName(args.programId, table, format);
    if (out === '-' && this.jsonEnabled()) this.error('--json prints the summary on stdout: give --out a file', { exit: 2 });
    const query: DataExportQuery = { table, format, dateFrom: flags.from, dateTo: flags.to, includeTest: flags['include-test'] };
    // Written beside the target and renamed when complete, so a failed export never leaves half a file under its name.
    const partial = out === '-' ? join(tmpdir(), `partnerkit-export-${process.pid}.${format}`) : `${out}.partial-${process.pid}`;
    const progress = await this.progress();
    let rows: number;
    try {
      rows = this.serverUrl(flags)
        ? await this.withClient(flags, { token: flags['session-token'] }, async (client) =>
            (await client.exports.download(args.programId, query, (body, headers) => {
              progress?.total(Number(headers['content-length']));
              let received = 0;
              const count = new Transform({
                transform(chunk: Buffer, _encoding, done) {
                  progress?.update((received += chunk.length));
                  done(null, chunk);
                },
              });
              return pipeline(body, count, createWriteStream(partial, { mode: 0o600 }));
            })).rows)
        : await this.exportLocally(this.dataDir(flags), args.programId, query, partial, progress);
      progress?.finish();
      // A reader that stops early (`| head`) is not a failure.
      if (out === '-') await pipeline(createReadStream(partial), process.stdout, { end: false }).catch(ignoreClosedPipe);
      else await rename(partial, out);
    } finally {
      progress?.stop();
      await rm(partial, { force: true });
    }
    if (out === '-') return { file: null, table, format, rows };
    const file = resolve(out);
    const { size } = statSync(file);
    this.log(`Wrote ${formatCount(rows)} ${table} row(s) to ${file} (${format}, ${formatBytes(size)})`);
    return { file, table, format, rows, bytes: size };
  }

  /** On a terminal, a bar: the share of rows DuckDB has written, or of bytes received from a server. */
  private async progress(): Promise<Progress | undefined> {
    if (!process.stderr.isTTY || this.jsonEnabled()) return undefined;
    const cliProgress = (await import('cli-progress')).default;
    const bar = new cliProgress.SingleBar({ format: 'exporting {bar} {percentage}% | {duration}s', stopOnComplete: false }, cliProgress.Presets.shades_classic);
    bar.start(100, 0);
    let stopped = false;
    const stop = () => {
      if (!stopped) bar.stop();
      stopped = true;
    };
    return {
      total: (value) => bar.setTotal(value),
      update: (value) => bar.update(value),
      finish: () => {
        bar.update(bar.getTotal());
        stop();
      },
      stop,
    };
  }

  /**
   * Without a server, this process opens the data dir and DuckDB writes the file directly. It
   * runs as the instance admin: whoever can open the data dir can read all of it (docs/exports.md#what-an-export-holds).
   */
  private async exportLocally(dir: DataDir, programId: number, query: DataExportQuery, path: string, progress?: Progress): Promise<number> {
    const [{ openLocalDeps }, { exportProgramData, exportRequest }] = await Promise.all([import('../src/local.js'), import('../src/domain/exports.js')]);
    const request = exportRequest(query);
    const { deps } = await openLocalDeps(dir, clockFromEnv());
    try {
      return await exportProgramData(deps, { kind: 'admin' }, programId, request, path, (fraction) => progress?.update(Math.round(fraction * 100)));
    } finally {
      await deps.store.close();
    }
  }
}
