import type { ExportFormat, Payout, PayoutBatch, PayoutPreview, PayoutStatus, PAYOUT_WAIT_REASONS } from '../api/index.js';
import { AppError, invalidRequest } from '../errors.js';
import { balances, takeIntoPayouts, type BalanceRow } from '../store/commissions.js';
import type { Sql } from '../store/db.js';
import { findPartners } from '../store/partners.js';
import * as payouts from '../store/payouts.js';
import type { PayoutRow } from '../store/payouts.js';
import { viewedProgram, viewedRow, type Viewer } from './access.js';
import type { Deps } from './deps.js';
import { exportFile, type ExportedPayout, type ExportResult } from './payout-export.js';
import { emitCommissions } from './commissions.js';
import { emit } from './outbound/events.js';
import { notify } from './mail/notifications.js';
import { findPrograms } from '../store/programs.js';
import { centsText } from '../money.js';

/** A sum of cents as the API writes it: the nearest double (docs/reports.md#rounding). */
const json = (cents: bigint) => Number(cents);

function payoutView(p: PayoutRow): Payout {
  return {
    id: p.id,
    batchId: p.batch_id,
    programId: p.program_id,
    partnerId: p.partner_id,
    currency: p.currency,
    amountCents: json(p.amount_cents),
    commissionIds: p.commission_ids,
    status: p.status,
    createdAt: p.created_at.toISOString(),
    paidAt: p.paid_at?.toISOString() ?? null,
  };
}

/** The largest amount the API writes exactly as a JSON number. */
const MAX_EXACT_CENTS = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Which balances are paid now and which wait (docs/refunds-and-payouts.md#balances-and-the-payout-preview):
 * a balance is due when it is positive, at least the program's minimum and at most 2^53 − 1 cents,
 * the most a payout's amount can be and still be answered exactly. Preview and create decide with
 * this one function.
 */
export function planPayouts(rows: BalanceRow[], minPayoutCents: number) {
  const due: BalanceRow[] = [];
  const waiting: Array<BalanceRow & { reason: (typeof PAYOUT_WAIT_REASONS)[number] }> = [];
  for (const row of rows) {
    if (row.balance_cents <= 0n) waiting.push({ ...row, reason: 'not_positive' });
    else if (row.balance_cents < BigInt(minPayoutCents)) waiting.push({ ...row, reason: 'below_minimum' });
    else if (row.balance_cents > MAX_EXACT_CENTS) waiting.push({ ...row, reason: 'amount_too_large' });
    else due.push(row);
  }
  return { due, waiting };
}

/**
 * A balance too large to pay stops the whole call before anything is written: paying the others
 * would leave it waiting unnoticed (docs/refunds-and-payouts.md#creating-payouts).
 */
function refuseTooLarge(waiting: ReturnType<typeof planPayouts>['waiting']): void {
  const tooLarge = waiting.filter((b) => b.reason === 'amount_too_large');
  if (tooLarge.length === 0) return;
  const what = tooLarge.map((b) => `partner ${b.partner_id} (${b.currency} ${b.balance_cents} cents)`).join(', ');
  throw new AppError('amount_too_large', `The balance of ${what} is over 2^53 − 1 cents, more than a payout can hold; nothing was paid`, {
    balances: tooLarge.map((b) => ({ partnerId: b.partner_id, currency: b.currency, balanceCents: String(b.balance_cents) })),
  });
}

/** GET /api/programs/:programId/payouts/preview: what `payout create` would pay now, and what waits. */
export async function previewPayouts({ store, clock }: Deps, viewer: Viewer, programId: number): Promise<PayoutPreview> {
  return store.read(async (sql) => {
    const program = await viewedProgram(store, sql, viewer, programId);
    const { due, waiting } = planPayouts(await balances(sql, programId, clock.now()), program.min_payout_cents);
    return {
      payouts: due.map((b) => ({ partnerId: b.partner_id, currency: b.currency, amountCents: json(b.balance_cents), commissionCount: b.commissions })),
      waiting: waiting.map((b) => ({ partnerId: b.partner_id, currency: b.currency, balanceCents: json(b.balance_cents), reason: b.reason })),
    };
  });
}

/**
 * POST /api/programs/:programId/payouts: one payout per due (partner, currency), taking every
 * commission approved now, in one batch. Read, decision and writes are one transaction of the one
 * writer, so a concurrent call sees this one's result and takes only what is left
 * (docs/refunds-and-payouts.md#creating-payouts).
 */
export async function createPayouts(deps: Deps, viewer: Viewer, programId: number): Promise<PayoutBatch> {
  const { store, clock } = deps;
  return store.transaction(async (sql) => {
    const program = await viewedProgram(store, sql, viewer, programId);
    const now = clock.now();
    const { due, waiting } = planPayouts(await balances(sql, programId, now), program.min_payout_cents);
    refuseTooLarge(waiting);
    if (due.length === 0) return { batchId: null, payouts: [] };
    const batchId = await store.nextId(sql, 'payout_batches');
    const first = await store.nextId(sql, 'payouts', due.length);
    await takeIntoPayouts(sql, programId, now, due.map((b, i) => ({ id: first + i, partnerId: b.partner_id, currency: b.currency })));
    await payouts.insertBatch(sql, { id: batchId, programId, createdAt: now }, first, first + due.length - 1);
    const created = await payouts.batchPayouts(sql, batchId);
    await emitPayouts(deps, sql, 'payout.created', created);
    return { batchId, payouts: created.map(payoutView) };
  });
}

/** GET /api/programs/:programId/payouts, by id. */
export async function listPayouts({ store }: Deps, viewer: Viewer, programId: number, status: PayoutStatus | undefined): Promise<Payout[]> {
  return store.read(async (sql) => {
    await viewedProgram(store, sql, viewer, programId);
    return (await payouts.programPayouts(sql, programId, { status })).map(payoutView);
  });
}

/** Mails each partner its payout marked paid (docs/mail.md#notifications-and-unsubscribing). */
async function notifyPaid(deps: Deps, sql: Sql, rows: PayoutRow[]): Promise<void> {
  if (!deps.mail || rows.length === 0) return;
  const partners = new Map((await findPartners(sql, [...new Set(rows.map((p) => p.partner_id))])).map((p) => [p.id, p]));
  const names = new Map((await findPrograms(sql, [...new Set(rows.map((p) => p.program_id))])).map((p) => [p.id, p.name]));
  await notify(deps, sql, rows.map((payout) => {
    const partner = partners.get(payout.partner_id)!;
    const amount = `${centsText(payout.amount_cents)} ${payout.currency}`;
    return {
      kind: 'payout_paid', programId: payout.program_id, to: [{ name: partner.name, address: partner.email }],
      subject: `Your payout of ${amount} from ${names.get(payout.program_id)} was paid`,
      lines: [`Hello ${partner.name},`, `${names.get(payout.program_id)} marked your payout ${payout.id} of ${amount} paid.`],
    };
  }));
}

/** The payouts' event, and commission.updated of the commissions they took, paid or gave back (docs/outbound-webhooks.md#event-types). */
async function emitPayouts(deps: Deps, sql: Sql, type: 'payout.created' | 'payout.paid' | 'payout.canceled', rows: PayoutRow[]): Promise<void> {
  await emit(deps, sql, rows.map((p) => ({ programId: p.program_id, type, livemode: true, data: payoutView(p) })));
  if (type === 'payout.paid') await notifyPaid(deps, sql, rows);
  for (const programId of new Set(rows.map((p) => p.program_id))) {
    await emitCommissions(deps, sql, programId, 'commission.updated', rows.filter((p) => p.program_id === programId).flatMap((p) => p.commission_ids));
  }
}

const payoutNotFound = (id: number) => () => new AppError('not_found', `Payout ${id} not found`);
const batchNotFound = (id: number) => () => new AppError('not_found', `Payout batch ${id} not found`);

async function viewedPayout(sql: Sql, viewer: Viewer, id: number): Promise<PayoutRow> {
  return viewedRow(sql, viewer, await payouts.findPayout(sql, id), (p) => p.program_id, payoutNotFound(id));
}

async function viewedBatch(sql: Sql, viewer: Viewer, id: number): Promise<PayoutRow[]> {
  await viewedRow(sql, viewer, await payouts.findBatchProgram(sql, id), (programId) => programId, batchNotFound(id));
  return payouts.batchPayouts(sql, id);
}

/** GET /api/payouts/:payoutId */
export async function showPayout({ store }: Deps, viewer: Viewer, id: number): Promise<Payout> {
  return store.read(async (sql) => payoutView(await viewedPayout(sql, viewer, id)));
}

function refuse(p: PayoutRow, action: string): AppError {
  return new AppError('invalid_status', `Payout ${p.id} is ${p.status} and cannot be ${action}`, { payoutId: p.id, status: p.status });
}

/**
 * POST /api/payouts/:payoutId/mark-paid and /cancel (docs/refunds-and-payouts.md#paying-and-canceling). A payout already in
 * the target status answers as it is: a retry changes nothing.
 */
export async function settlePayout(deps: Deps, viewer: Viewer, id: number, action: 'paid' | 'canceled'): Promise<Payout> {
  const { store, clock } = deps;
  return store.transaction(async (sql) => {
    const payout = await viewedPayout(sql, viewer, id);
    if (payout.status === 'processing') {
      if (action === 'paid') await payouts.markPaid(sql, [id], clock.now());
      else await payouts.cancel(sql, [id]);
      const settled = (await payouts.findPayout(sql, id))!;
      await emitPayouts(deps, sql, action === 'paid' ? 'payout.paid' : 'payout.canceled', [settled]);
      return payoutView(settled);
    }
    if (payout.status !== action) throw refuse(payout, action === 'paid' ? 'marked paid' : 'canceled');
    return payoutView(payout);
  });
}

/** POST /api/payout-batches/:batchId/mark-paid: every processing payout of the batch; the others stay as they are. */
export async function markBatchPaid(deps: Deps, viewer: Viewer, batchId: number): Promise<PayoutBatch> {
  const { store, clock } = deps;
  return store.transaction(async (sql) => {
    const processing = (await viewedBatch(sql, viewer, batchId)).filter((p) => p.status === 'processing').map((p) => p.id);
    if (processing.length > 0) await payouts.markPaid(sql, processing, clock.now());
    const batch = await payouts.batchPayouts(sql, batchId);
    await emitPayouts(deps, sql, 'payout.paid', batch.filter((p) => processing.includes(p.id)));
    return { batchId, payouts: batch.map(payoutView) };
  });
}

/**
 * GET /api/payout-batches/:batchId/export: the batch's processing payouts as a file
 * (docs/refunds-and-payouts.md#exporting-a-batch). PayPal and Wise files take one currency, so a batch of several needs
 * `currency`.
 */
export async function exportBatch({ store }: Deps, viewer: Viewer, batchId: number, format: ExportFormat, currency?: string): Promise<ExportResult> {
  return store.read(async (sql) => {
    const processing = (await viewedBatch(sql, viewer, batchId)).filter((p) => p.status === 'processing');
    const selected = processing.filter((p) => currency === undefined || p.currency === currency);
    const currencies = [...new Set(selected.map((p) => p.currency))].sort();
    if (format !== 'csv' && currencies.length > 1) {
      throw invalidRequest([
        { field: 'currency', message: `batch ${batchId} pays ${currencies.join(' and ')}; a ${format} file takes one currency: give currency` },
      ]);
    }
    const partners = new Map((await findPartners(sql, [...new Set(selected.map((p) => p.partner_id))])).map((p) => [p.id, p]));
    const rows: ExportedPayout[] = selected.map((p) => ({ payout: p, partner: partners.get(p.partner_id)! }));
    return exportFile(format, rows);
  });
}
