import type { Sql, Store } from '../store/db.js';
import { findEnrollmentsByRefs, type PartnerProgramRow } from '../store/partners.js';
import { cacheLifetime, ForgetfulCache, perStore } from './store-cache.js';

// Every click batch and partner link reads the enrollments of its referral codes. An enrollment's
// status changes only with its partner's (changingEnrollments), so the cache forgets a partner's
// enrollments then; on a shared database entries also expire, so a partner deactivated through
// another instance loses its links here within a second (docs/store-engines.md#what-a-process-may-remember). Unknown
// codes are not kept (docs/architecture.md#caches).
const cacheOf = perStore((store) => new ForgetfulCache<string, PartnerProgramRow>(Infinity, cacheLifetime(store)));

/** The enrollments of the referral codes that exist, by code, reading only the ones not cached. */
export function cachedEnrollments(store: Store, sql: Sql, refCodes: string[]): Promise<Map<string, PartnerProgramRow>> {
  return cacheOf(store).getMany(refCodes, async (missing) => (await findEnrollmentsByRefs(sql, missing)).map((e) => [e.ref_code, e] as const));
}

/** Runs a write that changes a partner's enrollments; the cache forgets them once it settled. */
export function changingEnrollments<T>(store: Store, partnerId: number, change: () => Promise<T>): Promise<T> {
  return cacheOf(store).changing(change, (_, enrollment) => enrollment.partner_id === partnerId);
}
