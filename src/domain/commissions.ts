import type { Commission, CommissionStatus, Page } from '../api/index.js';
import { AppError } from '../errors.js';
import * as commissions from '../store/commissions.js';
import type { CommissionView, PageRange } from '../store/commissions.js';
import { viewedProgram, type Viewer } from './access.js';
import type { Deps } from './deps.js';
import type { Sql } from '../store/db.js';
import { emit, wanted } from './outbound/events.js';

export function commissionView(c: CommissionView): Commission {
  return {
    id: c.id,
    programId: c.program_id,
    partnerId: c.partner_id,
    saleId: c.sale_id,
    type: c.type,
    amountCents: c.amount_cents,
    currency: c.currency,
    status: c.status,
    holdUntil: c.hold_until.toISOString(),
    createdAt: c.created_at.toISOString(),
    payoutId: c.payout_id,
    paidAt: c.paid_at?.toISOString() ?? null,
    reason: c.reason,
  };
}

/**
 * commission.created or commission.updated of the program's commissions `ids`, read as the admin API
 * answers them after the change, inside its transaction; read only when an endpoint wants them.
 */
export async function emitCommissions(deps: Deps, sql: Sql, programId: number, type: 'commission.created' | 'commission.updated', ids: number[]): Promise<void> {
  if (ids.length === 0 || !(await wanted(deps.store, sql, programId, type))) return;
  const views = await commissions.findCommissions(sql, programId, deps.clock.now(), ids);
  await emit(deps, sql, views.map((c) => ({ programId, type, livemode: true, data: commissionView(c) })));
}

/** GET /api/programs/:programId/commissions: statuses as read now (docs/refunds-and-payouts.md#the-status-a-commission-reads-as), by id, a page of them. */
export async function listCommissions(
  { store, clock }: Deps,
  viewer: Viewer,
  programId: number,
  filter: { status?: CommissionStatus; partnerId?: number },
  page: PageRange,
): Promise<Page<Commission>> {
  return store.read(async (sql) => {
    await viewedProgram(store, sql, viewer, programId);
    const { rows, total } = await commissions.listCommissions(sql, programId, clock.now(), filter, page);
    return { data: rows.map(commissionView), total };
  });
}

/**
 * What a review does to each status as read (docs/refunds-and-payouts.md#review-approve-and-reject): `to` the new status,
 * `from` the statuses it changes, `already` the ones it leaves as they are (a retried call).
 * Approving needs the hold to be over. A held commission is released to pending or rejected, and
 * only through those two (docs/fraud.md#held-commissions).
 */
const REVIEWS = {
  approve: { to: 'approved', from: ['pending'], already: ['approved'] },
  reject: { to: 'rejected', from: ['pending', 'approved'], already: ['rejected'] },
  release: { to: 'pending', from: ['on_hold'], already: [] },
  reject_held: { to: 'rejected', from: ['on_hold'], already: ['rejected'] },
} as const satisfies Record<string, { to: CommissionStatus; from: readonly CommissionStatus[]; already: readonly CommissionStatus[] }>;

export type Review = keyof typeof REVIEWS;

const REVIEW_VERBS: Record<Review, string> = { approve: 'approve', reject: 'reject', release: 'release', reject_held: 'reject held' };

type Refusal = { id: number; status: CommissionStatus; holdUntil?: string; clawbacksInPayouts?: number[] };

/**
 * Why a commission cannot take the review, or null when it can. `inPayouts` are the ids of its
 * sale's clawbacks that a processing or paid payout holds: a rejection could not take them back
 * (docs/refunds-and-payouts.md#review-approve-and-reject).
 */
function refusal(review: Review, c: CommissionView, now: Date, inPayouts: number[]): Refusal | null {
  const { from, already } = REVIEWS[review];
  if ((already as readonly string[]).includes(c.status)) return null;
  if (!(from as readonly string[]).includes(c.status)) return { id: c.id, status: c.status };
  if (review === 'approve' && c.hold_until > now) return { id: c.id, status: c.status, holdUntil: c.hold_until.toISOString() };
  if (REVIEWS[review].to === 'rejected' && inPayouts.length > 0) return { id: c.id, status: c.status, clawbacksInPayouts: inPayouts };
  return null;
}

function refusalText(r: Refusal): string {
  if (r.holdUntil) return `${r.id} (pending until ${r.holdUntil})`;
  if (r.clawbacksInPayouts) return `${r.id} (its clawbacks ${r.clawbacksInPayouts.join(', ')} are in payouts)`;
  return `${r.id} (${r.status})`;
}

/**
 * POST /api/programs/:programId/commissions/approve and /reject: every id or none. Ids that are
 * not the program's answer 404, ids in a status the review cannot change 409, and then nothing
 * has changed; otherwise the answer is every named commission after the change, by id.
 */
export async function reviewCommissions(
  deps: Deps,
  viewer: Viewer,
  programId: number,
  review: Review,
  input: { ids: number[]; reason?: string },
): Promise<Commission[]> {
  const { store, clock } = deps;
  const ids = [...new Set(input.ids)];
  return store.transaction(async (sql) => {
    await viewedProgram(store, sql, viewer, programId);
    const now = clock.now();
    const found = await commissions.findCommissions(sql, programId, now, ids);
    const known = new Set(found.map((c) => c.id));
    const missing = ids.filter((id) => !known.has(id)).sort((a, b) => a - b);
    if (missing.length > 0) {
      throw new AppError('not_found', `No commission ${missing.join(', ')} in program ${programId}; nothing was changed`, { ids: missing });
    }
    // A sale commission's clawbacks go with it when it is rejected (docs/refunds-and-payouts.md#review-approve-and-reject).
    const rejecting = REVIEWS[review].to === 'rejected';
    const clawbacks = rejecting ? await commissions.saleClawbacks(sql, programId, now, found.filter((c) => c.type === 'sale').map((c) => c.sale_id)) : [];
    const ofSale = (c: CommissionView, inPayout: boolean) =>
      c.type === 'sale' ? clawbacks.filter((k) => k.sale_id === c.sale_id && (k.status !== 'approved') === inPayout).map((k) => k.id) : [];
    const refused = found.map((c) => refusal(review, c, now, ofSale(c, true))).filter((r) => r !== null);
    if (refused.length > 0) {
      throw new AppError('invalid_status', `Cannot ${REVIEW_VERBS[review]} commission ${refused.map(refusalText).join(', ')}; nothing was changed`, { commissions: refused });
    }
    const changing = found.filter((c) => (REVIEWS[review].from as readonly string[]).includes(c.status));
    if (changing.length > 0) {
      await commissions.setCommissionStatus(sql, programId, changing.map((c) => c.id), REVIEWS[review].to, rejecting ? (input.reason ?? null) : null);
      const open = changing.flatMap((c) => ofSale(c, false)).filter((id) => !ids.includes(id)); // one rejected alongside stays rejected
      if (open.length > 0) await commissions.setCommissionStatus(sql, programId, open, 'reversed', null);
      await emitCommissions(deps, sql, programId, 'commission.updated', [...changing.map((c) => c.id), ...open]);
    }
    return (await commissions.findCommissions(sql, programId, now, ids)).map(commissionView);
  });
}
