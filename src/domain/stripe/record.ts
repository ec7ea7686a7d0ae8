import { AppError } from '../../errors.js';
import type { Sql } from '../../store/db.js';
import * as webhooks from '../../store/webhooks.js';
import type { AttributableCustomer } from '../../store/tracking.js';
import type { DeferralKeys, WebhookOutcome } from '../../store/webhooks.js';
import type { Deps } from '../deps.js';
import { saleRequestSchema } from '../sale-request.js';
import { pendingSale, type PendingSale, recordSales, type SaleResult } from '../track-sale.js';
import type { Outcome } from '../write-batcher.js';
import { resolveCustomers } from './attribute.js';
import { checkoutSessionPaid } from './checkout-session.js';
import { invoicePaid } from './invoice-paid.js';
import { type AttributionHints, type EventPlan, type SaleFields, skip, type SkipReason } from './plan.js';
import { checkedCheckoutSession, checkedInvoice, handledEnvelopeSchema, type ObjectHandler, type VerifiedEvent } from './schema.js';

/** Why an event has its outcome: a skip reason, or a note on a recorded one. */
export type OutcomeReason = SkipReason | 'already_recorded' | 'test_mode';

/** One function per event type, each reading its object only after its schema; every other type is ignored. */
const handlers = new Map<string, ObjectHandler>([
  ['checkout.session.completed', checkedCheckoutSession(checkoutSessionPaid)],
  ['checkout.session.async_payment_succeeded', checkedCheckoutSession(checkoutSessionPaid)],
  ['invoice.payment_succeeded', checkedInvoice(invoicePaid)],
  ['invoice.paid', checkedInvoice(invoicePaid)],
]);

/** What a verified event asks for, with the envelope fields its sale reads. */
export type PlannedEvent = { plan: EventPlan; created?: number; live: boolean };

/** Pure: no lookups. A handled event whose read fields have unexpected types is malformed_event. */
export function planEvent(event: VerifiedEvent, programId: number): PlannedEvent {
  const handler = handlers.get(event.type);
  if (!handler) return { plan: { outcome: 'ignored', reason: 'unhandled_event_type' }, live: true };
  const envelope = handledEnvelopeSchema.safeParse(event);
  if (!envelope.success) return { plan: skip('malformed_event'), live: true };
  return { plan: handler(event.data.object, programId), created: envelope.data.created, live: envelope.data.livemode !== false };
}

export type Decision = {
  outcome: WebhookOutcome;
  reason: OutcomeReason | null;
  saleId: number | null;
  /** A provider customer id to remember on the attributed customer. */
  link?: { customerId: number; providerCustomerId: string };
  /** The subscription and provider customer whose unattributed events this recorded sale makes attributable. */
  unlocks?: DeferralKeys;
};

function skipped(reason: SkipReason, outcome: 'ignored' | 'skipped' = 'skipped'): Decision {
  return { outcome, reason, saleId: null };
}

export function isUnattributed(decision: { outcome: WebhookOutcome; reason: string | null }): boolean {
  return decision.outcome === 'skipped' && decision.reason === 'no_attribution';
}

/** The identifiers stored with an event so that a later sale finds it while it is unattributed. */
export function deferralKeys({ plan }: PlannedEvent): DeferralKeys {
  return 'sale' in plan ? { subscriptionId: plan.hints.subscriptionId, providerCustomerId: plan.hints.providerCustomerId } : {};
}

async function storeLinks(sql: Sql, decisions: Decision[]): Promise<void> {
  await webhooks.linkProviderCustomers(sql, decisions.flatMap((d) => (d.link ? [d.link] : [])));
}

/** A planned event of a program, to be decided in the writer's transaction. */
export type EventToDecide = { programId: number; planned: PlannedEvent };

/** A sale of the batch on its way to recordSales, with what its decision is made of. */
type SaleToRecord = { index: number; pending: PendingSale; customer: AttributableCustomer | undefined; sale: SaleFields; hints: AttributionHints; live: boolean };

/**
 * The plans carried out inside the writer's transaction: no sale, or a sale attributed in the order
 * of §6 (one round trip per step for a wave of events) and recorded through the sale endpoint's
 * recordSales with that customer's key: validation, duplicates, window and commission are its code.
 * The provider customer links are written with each wave.
 */
export async function decideEvents(deps: Deps, sql: Sql, events: EventToDecide[], run: { afterFailure: boolean }): Promise<Decision[]> {
  const decisions: Decision[] = [];
  for (const wave of waves(events)) {
    const withSale = wave.flatMap((index) => {
      const { programId, planned } = events[index];
      const { plan } = planned;
      if ('sale' in plan) return [{ index, programId, planned, sale: plan.sale, hints: plan.hints }];
      decisions[index] = skipped(plan.reason, plan.outcome);
      return [];
    });
    const customers = await resolveCustomers(sql, withSale);
    const toRecord: SaleToRecord[] = [];
    withSale.forEach(({ index, programId, planned, sale, hints }, i) => {
      const customer = customers[i];
      const prepared = prepareSale(deps, programId, planned, sale, hints, customer);
      if ('pending' in prepared) toRecord.push({ index, pending: prepared.pending, customer, sale, hints, live: planned.live });
      else decisions[index] = prepared;
    });
    const outcomes = await recordSales(deps, sql, toRecord.map((r) => r.pending), run);
    toRecord.forEach((record, i) => (decisions[record.index] = saleDecision(record, outcomes[i])));
    await storeLinks(sql, wave.map((index) => decisions[index]));
  }
  return decisions;
}

/**
 * The events' indices in waves, in arrival order. An event naming the Stripe customer or the
 * subscription of an earlier event of the batch goes in a later wave, so it is attributed after
 * that event's sale and link are written, as if the two had come one at a time (§6's provider and
 * subscription steps read them). Unrelated events share a wave.
 */
function waves(events: EventToDecide[]): number[][] {
  const out: number[][] = [];
  const lastWave = new Map<string, number>();
  events.forEach(({ programId, planned }, index) => {
    const related = Object.entries(deferralKeys(planned)).flatMap(([kind, id]) => (id ? [`${programId}:${kind}:${id}`] : []));
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
  if (!customer && live) return skipped('no_attribution');
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
  try {
    const pending = pendingSale({ programId, apiKeyId: null, keyMode: 'live', source: 'stripe' }, request.data);
    return { pending: { ...pending, customer } };
  } catch (error) {
    return refusal(error);
  }
}

/** What recordSales answered, as the event's outcome. */
function saleDecision({ customer, sale, hints, live }: SaleToRecord, outcome: Outcome<SaleResult>): Decision {
  const recorded = (reason: 'already_recorded' | null, saleId: number): Decision => ({
    outcome: 'recorded', reason, saleId, link: linkOf(customer, hints), unlocks: unlocksOf(customer, sale, hints),
  });
  if (outcome.ok) {
    const result = outcome.value;
    if ('data' in result) return { outcome: 'recorded', reason: 'test_mode', saleId: null };
    if (result.sale_id === null) return skipped('attribution_window_expired');
    return recorded(null, result.sale_id);
  }
  if (outcome.error.code !== 'duplicate_transaction') return refusal(outcome.error);
  // The sale exists (an earlier event of the same payment): its outcome, not an error.
  if (!live) return { outcome: 'recorded', reason: 'test_mode', saleId: null };
  const saleId = (outcome.error.details as { sale_id: number | null }).sale_id;
  if (saleId === null) return skipped('attribution_window_expired');
  return recorded('already_recorded', saleId);
}

/** A refusal of the sale path as a skip; any other error is not the event's and fails its delivery. */
function refusal(error: unknown): Decision {
  if (!(error instanceof AppError)) throw error;
  if (error.code === 'no_attribution') return skipped('no_attribution');
  if (error.code === 'unsupported_currency') return skipped('unsupported_currency');
  if (error.code === 'invalid_request') return skipped('invalid_sale');
  throw error;
}

function linkOf(customer: AttributableCustomer | undefined, hints: AttributionHints): Decision['link'] {
  if (!customer || !hints.providerCustomerId || customer.provider_customer_id !== null) return undefined;
  return { customerId: customer.id, providerCustomerId: hints.providerCustomerId };
}

/**
 * A live sale makes attributable the events of its subscription (the subscription step) and of its
 * provider customer when that id is, or is about to be, the customer's link (the provider step).
 */
function unlocksOf(customer: AttributableCustomer | undefined, sale: SaleFields, hints: AttributionHints): DeferralKeys | undefined {
  if (!customer) return undefined;
  const provider = hints.providerCustomerId;
  const providerCustomerId = provider && (customer.provider_customer_id ?? provider) === provider ? provider : undefined;
  const subscriptionId = sale.subscription_id ?? undefined;
  return subscriptionId || providerCustomerId ? { subscriptionId, providerCustomerId } : undefined;
}
