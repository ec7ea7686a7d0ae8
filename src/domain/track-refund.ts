import { forgetRefundRates } from './fraud.js';
import type { Sql } from '../store/db.js';
import { programKey } from '../store/program-key.js';
import * as refunds from '../store/refunds.js';
import type { CommissionChange, RefundableSale, RefundRow } from '../store/refunds.js';
import * as sales from '../store/sales.js';
import type { CommissionRow, CommissionStatus, SaleMode } from '../store/sales.js';
import type { RefundRequest } from '../api/index.js';
import { commissionAfterRefund } from './commission.js';
import type { Deps } from './deps.js';
import type { StripePayment } from './track-sale.js';
import { batched } from './write-batcher.js';
import { emitCommissions } from './commissions.js';
import { emit } from './outbound/events.js';
import { refundEvent } from './outbound/payloads.js';

/** Who reports the refund: the API key's program and mode, or the webhook's program and the event's mode. */
export type RefundSource = { programId: number; mode: SaleMode; source: 'api' | 'stripe' };

/** A Stripe charge's ids, tried in this order to find its sale (docs/refunds-and-payouts.md#stripe-chargerefunded). */
export type ChargeIds = StripePayment & { chargeId: string; invoiceId?: string };

/**
 * A refund to record. Its sale is named by its transaction id (the refund endpoint) or found by its
 * Stripe charge; its amount is given (absent: everything not refunded yet), or, from Stripe, the
 * charge's cumulative refunded total, of which only the part not yet recorded is new.
 */
export type PendingRefund = RefundSource & {
  refundId: string;
  reason: string | null;
  sale: { transactionId: string } | { charge: ChargeIds };
  amount: { cents?: number } | { chargeRefundedCents: number; chargeFullyRefunded: boolean };
};

/** What became of a refund (docs/refunds-and-payouts.md#refunds-and-the-commission-lifecycle): data, never an exception. */
export type RefundOutcome =
  | {
      kind: 'recorded';
      refundId: number;
      saleId: number;
      refundedCents: number;
      remainingCents: number;
      /** The sale's commission after the refund; null for a test sale or a sale without one. */
      commission: { id: number; status: CommissionStatus } | null;
      clawbackId: number | null;
    }
  /** The refund id was recorded before. */
  | { kind: 'duplicate'; refundId: number; saleId: number }
  /** No sale of the program and mode has the transaction id (an expired window recorded none), or matches the charge. */
  | { kind: 'sale_not_found' }
  | { kind: 'exceeds_sale'; remainingCents: number }
  /**
   * Nothing new to refund: "everything left" of a fully refunded sale, or a Stripe charge whose
   * refunded total the sale's recorded refunds already cover.
   */
  | { kind: 'nothing_left'; saleId: number; remainingCents: number };

const recordRefund = batched(recordRefunds);

/** POST /api/v1/track/refund after authorization, rate limiting and validation. */
export function trackRefund(deps: Deps, source: RefundSource, request: RefundRequest): Promise<RefundOutcome> {
  return recordRefund(deps, {
    ...source,
    refundId: request.refund_id,
    reason: request.reason ?? null,
    sale: { transactionId: request.transaction_id },
    amount: { cents: request.amount_cents },
  });
}

const refundKeyOf = (r: PendingRefund) => programKey(r.programId, r.mode, r.refundId);
const saleKey = (mode: SaleMode, saleId: number) => `${mode}:${saleId}`;

/** A sale of the batch as its refunds change it: its refunded total and its commission. */
type SaleState = RefundableSale & {
  mode: SaleMode;
  commission?: refunds.SaleCommission;
  /** Its clawbacks that count (neither rejected nor reversed), in id order. */
  clawbacks: CommissionRow[];
};

/**
 * A batch of refunds in the writer's transaction (a RecordBatch; the Stripe webhook records its
 * refunds inside its own batch). Each is decided in arrival order against what the store holds and
 * what the earlier refunds of the batch did to the same sale; the refunds, clawbacks and changed
 * commissions are then written with one statement each. Refund ids are looked up on every run: a
 * duplicate answers before the sale is looked for (docs/refunds-and-payouts.md#post-apiv1trackrefund), and the unique
 * refund_key still settles concurrent ones.
 */
export async function recordRefunds(deps: Deps, sql: Sql, batch: PendingRefund[]): Promise<RefundOutcome[]> {
  if (batch.length === 0) return []; // a webhook batch without refunds
  const now = deps.clock.now();
  const recorded = await refunds.findRefunds(sql, batch.map(refundKeyOf));
  const saleIds = await locateSales(sql, batch);
  const states = await loadSales(sql, batch, saleIds, now);
  const nextId = await deps.store.idAllocator(sql, { refunds: batch.length, commissions: batch.length });
  const rows: RefundRow[] = [];
  const clawbacks: CommissionRow[] = [];
  const changed = new Map<number, CommissionChange>();
  const programOf = new Map<number, number>(); // commission → program, of those the refunds change

  const outcomes = batch.map((refund, i): RefundOutcome => {
    const key = refundKeyOf(refund);
    const earlier = recorded.get(key);
    if (earlier) return { kind: 'duplicate', refundId: earlier.id, saleId: earlier.sale_id };
    const sale = saleIds[i] === undefined ? undefined : states.get(saleKey(refund.mode, saleIds[i]));
    if (!sale) return { kind: 'sale_not_found' };
    const remaining = sale.amount_cents - sale.refunded_cents;
    const cents = refundCents(refund.amount, sale.refunded_cents, remaining);
    if (cents === 'nothing_left') return { kind: 'nothing_left', saleId: sale.id, remainingCents: remaining };
    if (cents > remaining) return { kind: 'exceeds_sale', remainingCents: remaining };

    const id = nextId('refunds');
    recorded.set(key, { id, sale_id: sale.id });
    sale.refunded_cents += cents;
    const live = refund.mode === 'live';
    rows.push({
      id, refund_key: key, program_id: refund.programId, mode: refund.mode, refund_id: refund.refundId, sale_id: sale.id, partner_program_id: sale.partner_program_id, amount_cents: cents,
      currency: sale.currency, reason: refund.reason, source: refund.source, completes_sale: sale.refunded_cents === sale.amount_cents,
      paid_at: live ? sale.paid_at : null, received_at: now,
    });
    // Only live sales have commissions (loadSales): a test refund touches none.
    const effect = sale.commission ? refundCommission(sale, sale.commission, now, nextId) : undefined;
    for (const change of effect?.changes ?? []) {
      changed.set(change.id, change);
      programOf.set(change.id, refund.programId);
    }
    if (effect?.clawback) clawbacks.push(effect.clawback);
    return {
      kind: 'recorded', refundId: id, saleId: sale.id, refundedCents: sale.refunded_cents, remainingCents: sale.amount_cents - sale.refunded_cents,
      commission: sale.commission ? { id: sale.commission.id, status: statusAfter(sale.commission) } : null,
      clawbackId: effect?.clawback?.id ?? null,
    };
  });
  await refunds.insertRefunds(sql, rows);
  forgetRefundRates(deps.store, rows.flatMap((r) => (r.partner_program_id === null ? [] : [r.partner_program_id])));
  await sales.insertCommissions(sql, clawbacks);
  await refunds.updateCommissions(sql, [...changed.values()]);
  await emit(deps, sql, rows.map(refundEvent));
  for (const programId of new Set(batch.map((r) => r.programId))) {
    await emitCommissions(deps, sql, programId, 'commission.updated', [...changed.keys()].filter((id) => programOf.get(id) === programId));
    await emitCommissions(deps, sql, programId, 'commission.created', clawbacks.filter((c) => c.program_id === programId).map((c) => c.id));
  }
  return outcomes;
}

/**
 * The cents this refund takes from the sale: as given, or everything left; from Stripe, the part of
 * the charge's refunded total not recorded yet, or everything left once the charge is fully refunded.
 */
function refundCents(amount: PendingRefund['amount'], refundedCents: number, remainingCents: number): number | 'nothing_left' {
  if ('cents' in amount && amount.cents !== undefined) return amount.cents;
  const cents = !('chargeRefundedCents' in amount) || amount.chargeFullyRefunded ? remainingCents : amount.chargeRefundedCents - refundedCents;
  return cents <= 0 ? 'nothing_left' : cents;
}

/**
 * The commission's new amount or status, the clawbacks it reverses and a new clawback, as the sale's
 * remaining amount asks (docs/refunds-and-payouts.md#effect-on-the-sales-commission). The sale's state
 * follows, for a later refund of the same sale in the batch.
 */
function refundCommission(sale: SaleState, commission: CommissionRow, now: Date, nextId: (table: string) => number) {
  const open = sale.clawbacks.filter((c) => c.status === 'approved');
  const sum = (rows: CommissionRow[]) => rows.reduce((cents, c) => cents + c.amount_cents, 0);
  const after = commissionAfterRefund(
    { status: commission.status, amountCents: commission.amount_cents, percentBp: commission.percent_bp, openCents: sum(open), lockedCents: sum(sale.clawbacks) - sum(open) },
    sale.amount_cents - sale.refunded_cents,
  );
  const changes: CommissionChange[] = [];
  if (after.status !== commission.status || after.amountCents !== commission.amount_cents) {
    changes.push({ id: commission.id, amount_cents: after.amountCents, status: after.status });
  }
  if (after.reverseOpen) {
    changes.push(...open.map((c) => ({ id: c.id, amount_cents: c.amount_cents, status: 'reversed' as const })));
    sale.clawbacks = sale.clawbacks.filter((c) => !open.includes(c));
  }
  commission.status = after.status;
  commission.amount_cents = after.amountCents;
  if (after.clawbackCents === 0) return { changes };
  const clawback: CommissionRow = {
    id: nextId('commissions'), program_id: commission.program_id, sale_id: sale.id, partner_program_id: commission.partner_program_id,
    amount_cents: after.clawbackCents, currency: commission.currency, status: 'approved', hold_until: now, created_at: now, type: 'clawback',
    payout_id: null, paid_at: null, reason: null, percent_bp: null,
  };
  sale.clawbacks.push(clawback);
  return { changes, clawback };
}

/**
 * Each refund's sale id, or undefined: by transaction id through the ledger (an expired window has
 * no sale), or by the charge's payment intent, else its invoice (named on the charge, or linked by
 * invoice_payment.paid), else the charge itself, among the program's sales' ids (docs/refunds-and-payouts.md#stripe-chargerefunded).
 */
async function locateSales(sql: Sql, batch: PendingRefund[]): Promise<Array<number | undefined>> {
  const txnKeys = batch.map((r) => ('transactionId' in r.sale ? programKey(r.programId, r.mode, r.sale.transactionId) : undefined));
  const ledger = await sales.findTransactions(sql, txnKeys.filter((k) => k !== undefined));
  const candidates = await chargeCandidates(sql, batch);
  const programIds = [...new Set(batch.map((r) => r.programId))];
  const found = new Map<SaleMode, refunds.SalePaymentRefs[]>();
  for (const mode of ['live', 'test'] as const) {
    const refs = batch.flatMap((r, i) => (r.mode === mode ? candidates[i] : []));
    found.set(mode, await refunds.findSalesByPaymentRefs(sql, mode, programIds, [...new Set(refs)]));
  }
  return batch.map((refund, i) => {
    if (txnKeys[i] !== undefined) return ledger.get(txnKeys[i]) ?? undefined;
    const rows = found.get(refund.mode)!.filter((s) => s.program_id === refund.programId);
    for (const ref of candidates[i]) {
      const sale = rows.find((s) => [s.transaction_id, s.provider_payment_id, s.payment_intent_id, s.charge_id].includes(ref));
      if (sale) return sale.id;
    }
    return undefined;
  });
}

/** Per refund, the ids its charge's sale may carry, in the order they are tried; empty for a refund by transaction id. */
async function chargeCandidates(sql: Sql, batch: PendingRefund[]): Promise<string[][]> {
  const charges = batch.map((r) => ('charge' in r.sale ? r.sale.charge : undefined));
  const unlinked = charges.filter((c) => c !== undefined && c.invoiceId === undefined);
  const links = await refunds.findInvoicePayments(
    sql,
    [...new Set(batch.map((r) => r.programId))],
    unlinked.flatMap((c) => [c!.paymentIntentId, c!.chargeId].filter((id) => id !== undefined)),
  );
  return charges.map((charge, i) => {
    if (!charge) return [];
    const link = links.find(
      (l) => l.program_id === batch[i].programId && ((charge.paymentIntentId !== undefined && l.payment_intent_id === charge.paymentIntentId) || l.charge_id === charge.chargeId),
    );
    const invoiceId = charge.invoiceId ?? link?.invoice_id;
    return [charge.paymentIntentId, invoiceId, charge.chargeId].filter((id) => id !== undefined);
  });
}

/**
 * The status the answer gives: a commission the refund left pending reads as it reads now (approved
 * after its hold under automatic approval, docs/refunds-and-payouts.md#the-status-a-commission-reads-as); a changed one, as changed.
 */
function statusAfter(commission: refunds.SaleCommission): CommissionStatus {
  return commission.status === 'pending' ? commission.read_status : commission.status;
}

/** The located sales with their refunded totals and commissions, by saleKey(mode, id). */
async function loadSales(sql: Sql, batch: PendingRefund[], saleIds: Array<number | undefined>, now: Date): Promise<Map<string, SaleState>> {
  const states = new Map<string, SaleState>();
  for (const mode of ['live', 'test'] as const) {
    const ids = [...new Set(batch.flatMap((r, i) => (r.mode === mode && saleIds[i] !== undefined ? [saleIds[i]] : [])))];
    for (const sale of await refunds.findRefundableSales(sql, mode, ids)) states.set(saleKey(mode, sale.id), { ...sale, mode, clawbacks: [] });
  }
  const liveIds = [...states.values()].filter((s) => s.mode === 'live').map((s) => s.id);
  for (const commission of await refunds.findSaleCommissions(sql, liveIds, now)) {
    const sale = states.get(saleKey('live', commission.sale_id))!;
    if (commission.type === 'sale') sale.commission = commission;
    else if (commission.status !== 'rejected' && commission.status !== 'reversed') sale.clawbacks.push(commission);
  }
  return states;
}
