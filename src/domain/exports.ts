import { createReadStream, type ReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dataExportQuerySchema, type DataExportQuery, type DataExportRequest } from '../api/index.js';
import { boundInstant } from '../days.js';
import { invalidRequest } from '../errors.js';
import { copyTable } from '../store/exports.js';
import { viewedProgram, type Viewer } from './access.js';
import type { Deps } from './deps.js';

/** The export's query checked as the route checks it, for a caller that is not the route (the CLI on a data dir): 400 naming the field. */
export function exportRequest(query: DataExportQuery): DataExportRequest {
  const parsed = dataExportQuerySchema.safeParse({ ...query, includeTest: query.includeTest === undefined ? undefined : String(query.includeTest) });
  if (parsed.success) return parsed.data;
  throw invalidRequest(parsed.error.issues.map((issue) => ({ field: issue.path.join('.') || 'query', message: issue.message })));
}

/**
 * Writes one table of a program's data to the file at `path` (docs/behaviour.md §14.8): 400 for a
 * range that ends before it starts, then 404 and 403 as every program route; answers the rows written.
 */
export async function exportProgramData(
  { store, clock }: Deps,
  viewer: Viewer,
  programId: number,
  query: DataExportRequest,
  path: string,
  onProgress?: (fraction: number) => void,
): Promise<number> {
  const from = query.dateFrom === undefined ? null : boundInstant(query.dateFrom, false);
  const to = query.dateTo === undefined ? null : boundInstant(query.dateTo, true);
  if (from && to && from > to) throw invalidRequest([{ field: 'dateFrom', message: 'dateFrom is after dateTo' }]);
  await store.read((sql) => viewedProgram(store, sql, viewer, programId));
  const filter = { programId, from, to, includeTest: query.includeTest, now: clock.now() };
  return copyTable(store, query.table, filter, query.format, path, onProgress);
}

export type ExportedFile = { rows: number; bytes: number; stream: ReadStream };

/**
 * The export for an HTTP answer: written to a private temporary file (DuckDB writes files, and a
 * file of millions of rows must not sit in memory), then read back as a stream that deletes the
 * file when it closes, whether the client read it all or went away.
 */
export async function exportedFile(deps: Deps, viewer: Viewer, programId: number, query: DataExportRequest): Promise<ExportedFile> {
  const dir = await mkdtemp(join(tmpdir(), 'partnerkit-export-'));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    const path = join(dir, `export.${query.format}`);
    const rows = await exportProgramData(deps, viewer, programId, query, path);
    const { size } = await stat(path);
    const stream = createReadStream(path);
    stream.once('close', () => void remove());
    return { rows, bytes: size, stream };
  } catch (error) {
    await remove();
    throw error;
  }
}
