import { AppError } from '../errors.js';
import type { Sql, Store } from '../store/db.js';
import { findMember } from '../store/members.js';
import type { ProgramRow } from '../store/programs.js';
import { cachedProgram } from './program-cache.js';

/** Who asks: the instance admin, or a user with a dashboard session (docs/reports.md#credential). */
export type Viewer = { kind: 'admin' } | { kind: 'user'; userId: number };

/** Whether the viewer may see the program's data: the admin always, a user while an active member. */
async function mayView(sql: Sql, viewer: Viewer, programId: number): Promise<boolean> {
  return viewer.kind === 'admin' || (await findMember(sql, programId, viewer.userId))?.status === 'active';
}

/** A program route's program: 404 when it does not exist, then 403 when the viewer is not an active member. */
export async function viewedProgram(store: Store, sql: Sql, viewer: Viewer, programId: number): Promise<ProgramRow> {
  const { program } = await cachedProgram(store, sql, programId);
  if (!(await mayView(sql, viewer, programId))) throw new AppError('forbidden', `You are not an active member of program ${programId}`);
  return program;
}

/**
 * A row reached by its own id (a payout, a batch) that belongs to a program: one the viewer may not
 * see answers exactly like one that does not exist, so ids of other programs reveal nothing.
 */
export async function viewedRow<T>(sql: Sql, viewer: Viewer, row: T | undefined, programOf: (row: T) => number, notFound: () => AppError): Promise<T> {
  if (row === undefined || !(await mayView(sql, viewer, programOf(row)))) throw notFound();
  return row;
}
