import { AppError } from '../errors.js';
import type { Sql, Store } from '../store/db.js';
import { groupsOf, type GroupRow } from '../store/groups.js';
import { findPrograms, listProductRules, type CommissionRule, type ProgramRow } from '../store/programs.js';
import { cacheLifetime, ForgetfulCache, perStore } from './store-cache.js';

/** A program with its product rules and its partner groups by id (docs/groups.md#groups). */
export type CachedProgram = { program: ProgramRow; rules: Map<string, CommissionRule>; groups: Map<number, GroupRow> };

// Programs with their product rules and groups are read by every sale batch and webhook delivery and change
// through changingProgram (rule add, webhook secret, group changes), so the cache forgets them; on a shared
// database entries also expire, for the changes other instances make (docs/store-engines.md#what-a-process-may-remember).
const cacheOf = perStore((store) => new ForgetfulCache<number, CachedProgram>(Infinity, cacheLifetime(store)));

export function programNotFound(id: number): AppError {
  return new AppError('not_found', `Program ${id} not found`);
}

/** The programs of `ids` that exist, with their product rules, reading only the ones not cached. */
export function cachedPrograms(store: Store, sql: Sql, ids: number[]): Promise<Map<number, CachedProgram>> {
  return cacheOf(store).getMany(ids, async (missing) => {
    const rows: Array<[number, CachedProgram]> = [];
    const found = await findPrograms(sql, missing);
    const groups = await groupsOf(sql, found.map((p) => p.id));
    for (const program of found) {
      const rules = await listProductRules(sql, program.id);
      rows.push([
        program.id,
        {
          program,
          rules: new Map(rules.map((r) => [r.product_id, { type: r.commission_type, value: r.commission_value }])),
          groups: new Map(groups.filter((g) => g.program_id === program.id).map((g) => [g.id, g])),
        },
      ]);
    }
    return rows;
  });
}

/** One program or 404 not_found. */
export async function cachedProgram(store: Store, sql: Sql, id: number): Promise<CachedProgram> {
  const found = (await cachedPrograms(store, sql, [id])).get(id);
  if (!found) throw programNotFound(id);
  return found;
}

/** Runs a write that changes a program or its rules; the cache forgets the program once it settled. */
export function changingProgram<T>(store: Store, id: number, change: () => Promise<T>): Promise<T> {
  return cacheOf(store).changing(change, (programId) => programId === id);
}
