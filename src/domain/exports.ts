import { randomBytes } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { dataExportQuerySchema, type DataExportQuery, type DataExportRequest } from '../api/index.js';
import { boundInstant } from '../days.js';
import { AppError, invalidRequest, rateLimited } from '../errors.js';
import { copyTable, type ExportFilter } from '../store/exports.js';
import { viewedProgram, type Viewer } from './access.js';
import type { Deps } from './deps.js';

/** The export's query checked as the route checks it, for a caller that is not the route (the CLI on a data dir): 400 naming the field. */
export function exportRequest(query: DataExportQuery): DataExportRequest {
  const parsed = dataExportQuerySchema.safeParse({ ...query, includeTest: query.includeTest === undefined ? undefined : String(query.includeTest) });
  if (parsed.success) return parsed.data;
  throw invalidRequest(parsed.error.issues.map((issue) => ({ field: issue.path.join('.') || 'query', message: issue.message })));
}

/** The rows an export writes: 400 for a range that ends before it starts, then 404 and 403 as every program route. */
async function exportFilter({ store, clock }: Deps, viewer: Viewer, programId: number, query: DataExportRequest): Promise<ExportFilter> {
  const from = query.dateFrom === undefined ? null : boundInstant(query.dateFrom, false);
  const to = query.dateTo === undefined ? null : boundInstant(query.dateTo, true);
  if (from && to && from > to) throw invalidRequest([{ field: 'dateFrom', message: 'dateFrom is after dateTo' }]);
  await store.read((sql) => viewedProgram(store, sql, viewer, programId));
  return { programId, from, to, includeTest: query.includeTest, now: clock.now() };
}

/** Writes one table of a program's data to the file at `path` (docs/exports.md#what-an-export-holds); answers the rows written. */
export async function exportProgramData(
  deps: Deps,
  viewer: Viewer,
  programId: number,
  query: DataExportRequest,
  path: string,
  onProgress?: (fraction: number) => void,
): Promise<number> {
  const filter = await exportFilter(deps, viewer, programId, query);
  return copyTable(deps.store, query.table, filter, query.format, path, onProgress);
}

/** How many exports may be answered at once, where their files are written, how long a client may stop reading. */
export type ExportSettings = {
  /** Where each answer's file is written, in a directory of its own: `<data dir>/exports` under `serve`. */
  dir: string;
  perProgram: number;
  perInstance: number;
  /** An answer whose client has read nothing for this long is closed and its file removed. */
  stallMs: number;
};

export const DEFAULT_EXPORT_LIMITS: Omit<ExportSettings, 'dir'> = { perProgram: 2, perInstance: 4, stallMs: 30_000 };

/** What a refused export's client is told to wait: about what a large export takes to be written and sent. */
const RETRY_AFTER_MS = 5_000;

export type ExportedFile = { rows: number; bytes: number; stream: ReadStream };

/** A directory of this process's exports is named `<pid>-<random>`: the pid tells a restart whose it was. */
const ownerPid = (name: string) => Number(name.split('-')[0]);

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Removes the export directories a process that was killed left under `dir` (docs/exports.md#temporary-files):
 * those of this process's pid (a previous process that had it) and of processes no longer running.
 * Directories of a live process are kept: on PostgreSQL several servers may share a data dir.
 */
export async function removeLeftoverExports(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return []; // made with the first export
    throw error;
  });
  const leftovers = names.filter((name) => ownerPid(name) === process.pid || !alive(ownerPid(name)));
  await Promise.all(leftovers.map((name) => rm(join(dir, name), { recursive: true, force: true })));
  return leftovers;
}

/**
 * The exports an app is answering (docs/exports.md): at most `perProgram` of a program and
 * `perInstance` in all at once, counted from the check of the request until the answer closes;
 * each written to a directory of its own under `settings.dir`, removed when its answer closes,
 * whether the client read it all, went away, or stopped reading for `stallMs`.
 */
export class RunningExports {
  private readonly perProgram = new Map<number, number>();
  private running = 0;
  /** Every export not yet finished with: closed by `close()`, which waits for their directories to go. */
  private readonly open = new Map<Promise<void>, () => void>();
  private closing = false;

  constructor(readonly settings: ExportSettings) {}

  /** The export as a file to stream: 400, 404 and 403 as exportProgramData, then 429 rate_limited over a limit. */
  async file(deps: Deps, viewer: Viewer, programId: number, query: DataExportRequest): Promise<ExportedFile> {
    const filter = await exportFilter(deps, viewer, programId, query);
    this.take(programId);
    let finished!: () => void;
    const done = new Promise<void>((resolve) => (finished = resolve));
    let stream: ReadStream | undefined;
    this.open.set(done, () => stream?.destroy());
    const dir = join(this.settings.dir, `${process.pid}-${randomBytes(6).toString('hex')}`);
    // The place is given back at once, so a client's next export does not wait for the removal.
    const release = async () => {
      this.give(programId);
      await rm(dir, { recursive: true, force: true });
      this.open.delete(done);
      finished();
    };
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const path = join(dir, `export.${query.format}`);
      const rows = await copyTable(deps.store, query.table, filter, query.format, path, undefined, dir);
      const { size } = await stat(path);
      stream = createReadStream(path);
      stream.once('close', () => void release());
      this.closeWhenStalled(stream);
      if (this.closing) {
        stream.destroy();
        throw new AppError('service_unavailable', 'The server is shutting down');
      }
      return { rows, bytes: size, stream };
    } catch (error) {
      if (!stream) await release();
      throw error;
    }
  }

  /** Closes every answer still open and waits until their files are removed (the app is closing). */
  async close(): Promise<void> {
    this.closing = true;
    for (const destroy of this.open.values()) destroy();
    await Promise.all(this.open.keys());
  }

  private take(programId: number): void {
    const ofProgram = this.perProgram.get(programId) ?? 0;
    if (ofProgram >= this.settings.perProgram) throw rateLimited(`Too many exports of program ${programId} at once`, RETRY_AFTER_MS);
    if (this.running >= this.settings.perInstance) throw rateLimited('Too many exports at once on this server', RETRY_AFTER_MS);
    this.perProgram.set(programId, ofProgram + 1);
    this.running++;
  }

  private give(programId: number): void {
    const left = this.perProgram.get(programId)! - 1;
    if (left === 0) this.perProgram.delete(programId);
    else this.perProgram.set(programId, left);
    this.running--;
  }

  /**
   * A client that stops reading stops the file's stream too (the socket's buffers fill and the
   * stream waits for them to drain): no chunk read for `stallMs` closes it, and with it the answer.
   */
  private closeWhenStalled(stream: ReadStream): void {
    let timer: NodeJS.Timeout;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => stream.destroy(), this.settings.stallMs);
    };
    arm();
    stream.on('data', arm);
    stream.once('close', () => clearTimeout(timer));
  }
}
