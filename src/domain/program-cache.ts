import { AppError } from '../errors.js';
import type { Sql, Store } from '../store/db.js';
import { findPrograms, listProductRules, type CommissionRule, type ProgramRow } from '../store/programs.js';

export type CachedProgram = { program: ProgramRow; rules: Map<string, CommissionRule> };

// Programs and their product rules are read by every sale batch and webhook delivery and change
// only through this process (rule add, webhook secret), which forgets them (forgetProgram).
const caches = new WeakMap<Store, Map<number, CachedProgram>>();

function cacheOf(store: Store): Map<number, CachedProgram> {
  let cache = caches.get(store);
  if (!cache) caches.set(store, (cache = new Map()));
  return cache;
}

/** The programs of `ids` that exist, with their product rules, reading only the ones not cached. */
export async function cachedPrograms(store: Store, sql: Sql, ids: number[]): Promise<Map<number, CachedProgram>> {
  const cache = cacheOf(store);
  const missing = ids.filter((id) => !cache.has(id));
  for (const program of await findPrograms(sql, missing)) {
    const rules = await listProductRules(sql, program.id);
    cache.set(program.id, {
      program,
      rules: new Map(rules.map((r) => [r.product_id, { type: r.commission_type, value: r.commission_value }])),
    });
  }
  return new Map(ids.flatMap((id) => (cache.has(id) ? [[id, cache.get(id)!] as const] : [])));
}

/** One program or 404 not_found. */
export async function cachedProgram(store: Store, sql: Sql, id: number): Promise<CachedProgram> {
  const found = (await cachedPrograms(store, sql, [id])).get(id);
  if (!found) throw new AppError('not_found', `Program ${id} not found`);
  return found;
}

export function forgetProgram(store: Store, id: number): void {
  cacheOf(store).delete(id);
}
