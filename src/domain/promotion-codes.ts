import type { CreateCodeRequest, PromotionCodeView } from '../api/index.js';
import { AppError } from '../errors.js';
import type { Sql } from '../store/db.js';
import { findEnrollment, findPartner } from '../store/partners.js';
import { programKey } from '../store/program-key.js';
import * as codes from '../store/promotion-codes.js';
import type { EnrolledCode } from '../store/promotion-codes.js';
import { viewedProgram, type Viewer } from './access.js';
import type { Deps } from './deps.js';

/*
 * Promotion codes (docs/promotion-codes.md): added and removed by members, looked up by the sale and
 * lead batches as their last attribution step.
 */

/** The stored key of a code: unique per program, whatever the case (docs/promotion-codes.md#codes). */
export const codeKey = (programId: number, code: string) => programKey(programId, code.toLowerCase());

function codeView(row: EnrolledCode): PromotionCodeView {
  return {
    id: row.id,
    programId: row.program_id,
    partnerId: row.partner_id,
    partnerName: row.partner_name,
    code: row.code,
    stripePromotionCode: row.stripe_promotion_code,
    createdAt: row.created_at.toISOString(),
  };
}

/** POST /api/programs/:programId/codes: a code for an enrolled partner; one taken in any case, or a Stripe id taken, is 409 naming it. */
export async function addCode({ store, clock }: Deps, viewer: Viewer, programId: number, input: CreateCodeRequest): Promise<PromotionCodeView> {
  return store.transaction(async (sql) => {
    await viewedProgram(store, sql, viewer, programId);
    const enrollment = await findEnrollment(sql, programId, input.partnerId);
    if (!enrollment) throw new AppError('conflict', `Partner ${input.partnerId} is not enrolled in program ${programId}`, { partnerId: input.partnerId });
    if (enrollment.status !== 'active') throw new AppError('conflict', `Partner ${input.partnerId} is inactive in program ${programId}`, { partnerId: input.partnerId });
    const key = codeKey(programId, input.code);
    const [taken] = await codes.findCodesByKeys(sql, [key]);
    if (taken) {
      const state = taken.removed_at === null ? 'exists' : 'was removed and stays taken';
      throw new AppError('conflict', `Promotion code ${taken.code} ${state} in program ${programId}`, { code: taken.code });
    }
    const stripeId = input.stripePromotionCode ?? null;
    const [named] = stripeId === null ? [] : await codes.findCodesByStripeIds(sql, [programId], [stripeId]);
    if (named) throw new AppError('conflict', `Stripe promotion code ${stripeId} already names code ${named.code}`, { code: named.code });
    const row: EnrolledCode = {
      id: await store.nextId(sql, 'promotion_codes'),
      code_key: key,
      program_id: programId,
      partner_program_id: enrollment.id,
      code: input.code,
      stripe_promotion_code: stripeId,
      created_at: clock.now(),
      removed_at: null,
      partner_id: enrollment.partner_id,
      partner_name: (await findPartner(sql, enrollment.partner_id))!.name,
      enrollment_status: enrollment.status,
      group_id: enrollment.group_id ?? null,
    };
    await codes.insertCode(sql, row);
    return codeView(row);
  });
}

/** GET /api/programs/:programId/codes: the codes not removed, optionally of one partner. */
export async function listCodes({ store }: Deps, viewer: Viewer, programId: number, partnerId?: number): Promise<PromotionCodeView[]> {
  return store.read(async (sql) => {
    await viewedProgram(store, sql, viewer, programId);
    return (await codes.listCodes(sql, programId, partnerId ?? null)).map(codeView);
  });
}

/** DELETE /api/programs/:programId/codes/:code: the code attributes nothing new from now on; 404 when there is none to remove. */
export async function removeCode({ store, clock }: Deps, viewer: Viewer, programId: number, code: string): Promise<PromotionCodeView> {
  return store.transaction(async (sql) => {
    await viewedProgram(store, sql, viewer, programId);
    const [found] = await codes.findCodesByKeys(sql, [codeKey(programId, code)]);
    if (!found || found.removed_at !== null) throw new AppError('not_found', `Promotion code ${code} not found in program ${programId}`);
    await codes.markRemoved(sql, found.id, clock.now());
    return codeView(found);
  });
}

/** What a sale or lead names as its code: the code itself (`coupon_code`, an expanded Stripe promotion code) or a Stripe promotion code id. */
export type CodeRef = { code: string } | { stripeId: string };

/**
 * The codes that attribute, for a batch: by programKey(program, ref) as codeRefKey makes it.
 * Removed codes attribute nothing (docs/promotion-codes.md#codes); a code of an inactive
 * enrollment is returned, and refused by the caller like an inactive click's partner.
 */
export async function findAttributingCodes(sql: Sql, wanted: Array<{ programId: number; ref: CodeRef }>): Promise<Map<string, EnrolledCode>> {
  const byCode = wanted.flatMap(({ programId, ref }) => ('code' in ref ? [codeKey(programId, ref.code)] : []));
  const byStripe = wanted.flatMap(({ ref }) => ('stripeId' in ref ? [ref.stripeId] : []));
  const programIds = [...new Set(wanted.map((w) => w.programId))];
  const found = new Map<string, EnrolledCode>();
  for (const row of await codes.findCodesByKeys(sql, byCode)) if (row.removed_at === null) found.set(row.code_key, row);
  for (const row of await codes.findCodesByStripeIds(sql, programIds, byStripe)) {
    if (row.removed_at === null) found.set(codeRefKey(row.program_id, { stripeId: row.stripe_promotion_code! }), row);
  }
  return found;
}

/** The key findAttributingCodes answers a ref under. */
export function codeRefKey(programId: number, ref: CodeRef): string {
  return 'code' in ref ? codeKey(programId, ref.code) : programKey(programId, 'stripe', ref.stripeId);
}
