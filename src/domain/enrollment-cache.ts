import type { Sql, Store } from '../store/db.js';
import { findEnrollmentsByRefs, type PartnerProgramRow } from '../store/partners.js';
import { ForgetfulCache, perStore } from './store-cache.js';

// Every click batch reads the enrollments of its referral codes. This process alone writes them, and
// nothing changes an enrollment once created, so an enrollment read once stays true; unknown codes
// are not kept (docs/architecture.md §5).
const cacheOf = perStore(() => new ForgetfulCache<string, PartnerProgramRow>());

/** The enrollments of the referral codes that exist, by code, reading only the ones not cached. */
export function cachedEnrollments(store: Store, sql: Sql, refCodes: string[]): Promise<Map<string, PartnerProgramRow>> {
  return cacheOf(store).getMany(refCodes, async (missing) => (await findEnrollmentsByRefs(sql, missing)).map((e) => [e.ref_code, e] as const));
}
