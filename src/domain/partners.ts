import type { ProgramPartner } from '../api/index.js';
import { programPartners } from '../store/partners.js';
import { viewedProgram, type Viewer } from './access.js';
import type { Deps } from './deps.js';
import { partnerLinks } from './links.js';

/**
 * GET /api/programs/:programId/partners: the names behind the partner ids of commissions and
 * payouts, and the dashboard's partner search (`q`, docs/api.md#the-partners-of-a-program).
 */
export async function listProgramPartners({ store }: Deps, viewer: Viewer, programId: number, q?: string): Promise<ProgramPartner[]> {
  return store.read(async (sql) => {
    await viewedProgram(store, sql, viewer, programId);
    return (await programPartners(sql, programId, q)).map((e) => ({
      partnerId: e.partner_id, name: e.name, email: e.email, payoutMethod: e.payout_method, refCode: e.ref_code, status: e.status, enrolledAt: e.created_at.toISOString(),
    }));
  });
}

/** GET /api/programs/:programId/partners/:partnerId: a partner's links, for a member (the admin API's answer). */
export async function programPartnerLinks(deps: Deps, viewer: Viewer, programId: number, partnerId: number) {
  await deps.store.read((sql) => viewedProgram(deps.store, sql, viewer, programId));
  return partnerLinks(deps, programId, partnerId);
}
