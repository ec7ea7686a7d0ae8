import type { ProgramPartner } from '../api/index.js';
import { programPartners } from '../store/partners.js';
import { viewedProgram, type Viewer } from './access.js';
import type { Deps } from './deps.js';

/** GET /api/programs/:programId/partners: the names behind the partner ids of commissions and payouts. */
export async function listProgramPartners({ store }: Deps, viewer: Viewer, programId: number): Promise<ProgramPartner[]> {
  return store.read(async (sql) => {
    await viewedProgram(store, sql, viewer, programId);
    return (await programPartners(sql, programId)).map((e) => ({ partnerId: e.partner_id, name: e.name, refCode: e.ref_code, status: e.status }));
  });
}
