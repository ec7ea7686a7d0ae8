import { saleRequestSchema, type OutcomeReason } from '../../api/index.js';
import type { Sql } from '../../store/db.js';
import { programKey } from '../../store/program-key.js';
import type { AttributableCustomer } from '../../store/tracking.js';
import * as refunds from '../../store/refunds.js';
import * as webhooks from '../../store/webhooks.js';
import type { DeferralKeys, Unlocks, WebhookOutcome } from '../../store/webhooks.js';
import type { Deps } from '../deps.js';
import { recordRefunds, type PendingRefund, type RefundOutcome } from '../track-refund.js';
import { pendingSale, type PendingSale, recordSales, type SaleOutcome, type SaleRefusal, type StripePayment } from '../track-sale.js';
import type { BatchRun } from '../write-batcher.js';
import { resolveCustomers } from './attribute.js';
import type { AttributionHints, PaymentLink, RefundPlan, SaleFields, SkipReason } from './event-plan.js';
import type { PlannedEvent } from './plan.js';


type Decision = {
  outcome: WebhookOutcome;
  reason: OutcomeReason | null;
  saleId: number | null;
  /** A provider customer id to remember on the attributed customer. */
  link?: { customerId: number; providerCustomerId: string };
  /** What this recorded sale or link makes findable for the events waiting for it. */
  unlocks?: Unlocks;
};

function skipped(reason: SkipReason, outcome: 'ignored' | 'skipped' = 'skipped'): Decision {
  return { outcome, reason, saleId: null };
}

/** An event that waits for a later sale or link: unattributed, or a refund whose sale was not found (docs/webhooks.md#deferred-attribution-events-out-of-order). */
export function isDeferred(decision: { outcome: WebhookOutcome; reason: string | null }): boolean {
  return decision.outcome === 'skipped' && (decision.reason === 'no_attribution' || decision.reason === 'sale_not_found');
}

/** The identifiers stored with an event so that a later sale or link finds it while it waits. */
export function deferralKeys({ plan }: PlannedEvent): DeferralKeys {
  if ('sale' in plan) return { subscriptionId: plan.hints.subscriptionId, providerCustomerId: plan.hints.providerCustomerId };
  if ('refund' in plan) return { ...plan.refund.charge };
  return {};
}

async function storeLinks(sql: Sql, decisions: Decision[]): Promise<void> {
  await webhooks.linkProviderCustomers(sql, decisions.flatMap((d) => (d.link ? [d.link] : [])));
}

/** A planned event of a program, to be decided in the writer's transaction. */
type EventToDecide = { programId: number; planned: PlannedEvent };

/** A sale of the batch on its way to recordSales, with what its decision is made of. */
type SaleToRecord = {
  index: number;
  pending: PendingSale;
  customer: AttributableCustomer | undefined;
  sale: SaleFields;
  hints: AttributionHints;
  payment: StripePayment;
  live: boolean;
};

/**
 * Stage 3: the plans carried out inside the writer's transaction: no sale, or a sale attributed in
 * the order of docs/webhooks.md#attribution-fallback-order (one round trip per step for a wave of events) and recorded
 * through the sale endpoint's recordSales with that customer's key: validation, duplicates, window
 * and commission are its code. The provider customer links are written with each wave. After the
 * sales, the batch's invoice payments are remembered and its refunds recorded through the refund
 * endpoint's recordRefunds, so a refund sees the sales and links of its own batch.
 */
export async function decideEvents(deps: Deps, sql: Sql, events: EventToDecide[], run: BatchRun): Promise<Decision[]> {
  const decisions: Decision[] = [];
  const links: Array<{ index: number; programId: number; link: PaymentLink }> = [];
  const refundsToRecord: Array<{ index: number; programId: number; refund: RefundPlan; live: boolean }> = [];
  for (const wave of waves(events)) {
    const withSale = wave.flatMap((index) => {
      const { programId, planned } = events[index];
      const { plan } = planned;
      if ('sale' in plan) return [{ index, programId, planned, sale: plan.sale, hints: plan.hints, payment: plan.payment }];
      if ('link' in plan) links.push({ index, programId, link: plan.link });
      else if ('refund' in plan) refundsToRecord.push({ index, programId, refund: plan.refund, live: planned.live });
      else decisions[index] = skipped(plan.reason, plan.outcome);
      return [];
    });
    const customers = await resolveCustomers(sql, withSale);
    const toRecord: SaleToRecord[] = [];
    withSale.forEach(({ index, programId, planned, sale, hints, payment }, i) => {
      const customer = customers[i];
      const prepared = prepareSale(deps, programId, planned, sale, hints, customer);
      if ('pending' in prepared) toRecord.push({ index, pending: { ...prepared.pending, payment }, customer, sale, hints, payment, live: planned.live });
      else decisions[index] = prepared;
    });
    const outcomes = await recordSales(deps, sql, toRecord.map((r) => r.pending), run);
    toRecord.forEach((record, i) => (decisions[record.index] = saleDecision(record, outcomes[i])));
    await storeLinks(sql, toRecord.map(({ index }) => decisions[index]));
  }

  const now = deps.clock.now();
  await refunds.insertInvoicePayments(
    sql,
    links.map(({ programId, link }) => ({
      program_id: programId, invoice_id: link.invoiceId, payment_intent_id: link.paymentIntentId ?? null, charge_id: link.chargeId ?? null, created_at: now,
    })),
  );
  for (const { index, link } of links) {
    decisions[index] = { outcome: 'recorded', reason: 'payment_linked', saleId: null, unlocks: { paymentRefs: paymentRefs(link.paymentIntentId, link.chargeId) } };
  }
  const refundOutcomes = await recordRefunds(deps, sql, refundsToRecord.map(({ programId, refund, live }) => pendingRefund(programId, refund, live)));
  refundsToRecord.forEach(({ index, live }, i) => (decisions[index] = refundDecision(refundOutcomes[i], live)));
  return decisions;
}

/** A charge's refund as the refund endpoint records it; its mode is the event's. */
function pendingRefund(programId: number, refund: RefundPlan, live: boolean): PendingRefund {
  return {
    programId, mode: live ? 'live' : 'test', source: 'stripe', refundId: refund.refundId, reason: null,
    sale: { charge: refund.charge },
    amount: { chargeRefundedCents: refund.refundedCents, chargeFullyRefunded: refund.fullyRefunded },
  };
}

/** What recordRefunds answered, as the event's outcome (docs/refunds-and-payouts.md#invoice_paymentpaid-and-refunds-that-wait); a test event's sale is not named. */
function refundDecision(outcome: RefundOutcome, live: boolean): Decision {
  switch (outcome.kind) {
    case 'recorded':
      return { outcome: 'recorded', reason: live ? 'refund_recorded' : 'test_mode', saleId: live ? outcome.saleId : null };
    case 'duplicate':
    case 'nothing_left':
      return { outcome: 'recorded', reason: live ? 'already_refunded' : 'test_mode', saleId: live ? outcome.saleId : null };
    case 'sale_not_found':
      return skipped('sale_not_found');
    case 'exceeds_sale':
      return skipped('refund_exceeds_sale');
  }
}

const paymentRefs = (...ids: Array<string | undefined>) => ids.filter((id) => id !== undefined);

/**
 * The events' indices in waves, in arrival order. An event naming the Stripe customer or the
 * subscription of an earlier event of the batch goes in a later wave, so it is attributed after
 * that event's sale and link are written, as if the two had come one at a time (docs/webhooks.md#events-of-one-stripe-customer-or-subscription-decided-together: the provider and
 * subscription steps read them). Unrelated events share a wave.
 */
function waves(events: EventToDecide[]): number[][] {
  const out: number[][] = [];
  const lastWave = new Map<string, number>();
  events.forEach(({ programId, planned }, index) => {
    const { plan } = planned;
    const names = 'sale' in plan ? { subscription: plan.hints.subscriptionId, customer: plan.hints.providerCustomerId } : {};
    const related = Object.entries(names).flatMap(([kind, id]) => (id ? [programKey(programId, kind, id)] : []));
    const wave = Math.max(0, ...related.map((key) => (lastWave.get(key) ?? -1) + 1));
    for (const key of related) lastWave.set(key, wave);
    (out[wave] ??= []).push(index);
  });
  return out;
}

/** The sale request the event stands for, as the sale endpoint would check it; or why it records none. */
function prepareSale(
  deps: Deps,
  programId: number,
  { created, live }: PlannedEvent,
  sale: SaleFields,
  hints: AttributionHints,
  customer: AttributableCustomer | undefined,
): { pending: PendingSale } | Decision {
  // Without a customer a live sale may still carry a promotion code, which recordSales tries last.
  if (!customer && live && hints.promotion === undefined) return skipped('no_attribution');
  const schema = saleRequestSchema(deps.clock);
  const occurredAt = created === undefined ? undefined : new Date(created * 1000).toISOString();
  const request = schema.safeParse({
    ...sale,
    customer_key: customer?.customer_key ?? hints.customerKey,
    click_id: customer ? undefined : hints.clickId,
    // The event's time, when the sale endpoint would accept it; else the receipt time is used.
    occurred_at: occurredAt !== undefined && schema.shape.occurred_at.safeParse(occurredAt).success ? occurredAt : undefined,
    livemode: live ? undefined : false,
  });
  if (!request.success) return skipped('invalid_sale');
  const pending = pendingSale({ programId, apiKeyId: null, keyMode: 'live', source: 'stripe' }, request.data);
  return 'refused' in pending ? skipped(skipReasonOf(pending.refused)) : { pending: { ...pending, customer, promotion: customer ? undefined : hints.promotion } };
}

/** What recordSales answered, as the event's outcome: the one mapping of sale outcomes to webhook outcomes. */
function saleDecision({ customer, sale, hints, payment, live }: SaleToRecord, outcome: SaleOutcome): Decision {
  const recorded = (reason: 'already_recorded' | null, saleId: number): Decision => ({
    outcome: 'recorded', reason, saleId, link: linkOf(customer, hints), unlocks: unlocksOf(customer, sale, hints, payment),
  });
  switch (outcome.kind) {
    case 'recorded':
      return recorded(null, outcome.saleId);
    case 'test_recorded':
      return { outcome: 'recorded', reason: 'test_mode', saleId: null, unlocks: { paymentRefs: saleRefs(sale, payment) } };
    case 'window_expired':
      return skipped('attribution_window_expired');
    case 'duplicate':
      // The sale exists (an earlier event of the same payment): its outcome, not an error.
      if (!live) return { outcome: 'recorded', reason: 'test_mode', saleId: null };
      return outcome.saleId === null ? skipped('attribution_window_expired') : recorded('already_recorded', outcome.saleId);
    case 'refused':
      return skipped(skipReasonOf(outcome));
  }
}

function skipReasonOf(refusal: SaleRefusal): SkipReason {
  switch (refusal.reason) {
    case 'no_attribution':
    case 'partner_inactive':
      return 'no_attribution';
    case 'unsupported_currency':
      return 'unsupported_currency';
    case 'missing_fields':
      return 'invalid_sale';
  }
}

function linkOf(customer: AttributableCustomer | undefined, hints: AttributionHints): Decision['link'] {
  if (!customer || !hints.providerCustomerId || customer.provider_customer_id !== null) return undefined;
  return { customerId: customer.id, providerCustomerId: hints.providerCustomerId };
}

/**
 * A live sale makes attributable the events of its subscription (the subscription step) and of its
 * provider customer when that id is, or is about to be, the customer's link (the provider step),
 * and findable the refunds of its payment.
 */
function unlocksOf(customer: AttributableCustomer | undefined, sale: SaleFields, hints: AttributionHints, payment: StripePayment): Unlocks {
  const provider = hints.providerCustomerId;
  const providerCustomerId = customer && provider && (customer.provider_customer_id ?? provider) === provider ? provider : undefined;
  return { subscriptionId: sale.subscription_id ?? undefined, providerCustomerId, paymentRefs: saleRefs(sale, payment) };
}

/** The ids a refund of the sale's payment may name: its transaction id (an invoice, a payment intent), its payment intent and charge. */
const saleRefs = (sale: SaleFields, payment: StripePayment) => paymentRefs(sale.transaction_id, payment.paymentIntentId, payment.chargeId);
