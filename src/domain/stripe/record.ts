import { AppError } from '../../errors.js';
import type { Sql } from '../../store/db.js';
import type { CustomerRow } from '../../store/tracking.js';
import * as webhooks from '../../store/webhooks.js';
import type { DeferralKeys, WebhookOutcome } from '../../store/webhooks.js';
import type { Deps } from '../deps.js';
import { saleRequestSchema } from '../sale-request.js';
import { trackSale, type SaleSource } from '../track-sale.js';
import { resolveCustomer } from './attribute.js';
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

/** The plan carried out: no sale, or a sale attributed and recorded through the sale endpoint's path. */
export function decide(deps: Deps, programId: number, planned: PlannedEvent): Promise<Decision> | Decision {
  const { plan } = planned;
  return 'sale' in plan ? recordSale(deps, programId, planned, plan.sale, plan.hints) : skipped(plan.reason, plan.outcome);
}

/** The identifiers stored with an event so that a later sale finds it while it is unattributed. */
export function deferralKeys({ plan }: PlannedEvent): DeferralKeys {
  return 'sale' in plan ? { subscriptionId: plan.hints.subscriptionId, providerCustomerId: plan.hints.providerCustomerId } : {};
}

/** Inside the writer: whether an unattributed event became attributable since it was decided (a concurrent sale). */
export async function attributableNow(sql: Sql, programId: number, { subscriptionId, providerCustomerId }: DeferralKeys): Promise<boolean> {
  if (providerCustomerId && (await webhooks.findCustomerByProviderId(sql, programId, providerCustomerId))) return true;
  return subscriptionId !== undefined && (await webhooks.findCustomerBySubscription(sql, programId, subscriptionId)) !== undefined;
}

export async function storeLinks(sql: Sql, decisions: Decision[]): Promise<void> {
  await webhooks.linkProviderCustomers(sql, decisions.flatMap((d) => (d.link ? [d.link] : [])));
}

/**
 * Resolves the customer in the order of §6, then records through trackSale with that customer's
 * key: validation, duplicates, window and commission are the sale endpoint's code path.
 */
async function recordSale(deps: Deps, programId: number, { created, live }: PlannedEvent, sale: SaleFields, hints: AttributionHints): Promise<Decision> {
  const customer = await deps.store.read((sql) => resolveCustomer(sql, programId, hints));
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

  const source: SaleSource = { programId, apiKeyId: null, keyMode: 'live', source: 'stripe' };
  const recorded = (reason: 'already_recorded' | null, saleId: number): Decision => ({
    outcome: 'recorded', reason, saleId, link: linkOf(customer, hints), unlocks: unlocksOf(customer, sale, hints),
  });
  try {
    const result = await trackSale(deps, source, request.data);
    if ('data' in result) return { outcome: 'recorded', reason: 'test_mode', saleId: null };
    if (result.sale_id === null) return skipped('attribution_window_expired');
    return recorded(null, result.sale_id);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.code === 'duplicate_transaction') {
      // The sale exists (an earlier event of the same payment): its outcome, not an error.
      if (!live) return { outcome: 'recorded', reason: 'test_mode', saleId: null };
      const saleId = (error.details as { sale_id: number | null }).sale_id;
      if (saleId === null) return skipped('attribution_window_expired');
      return recorded('already_recorded', saleId);
    }
    if (error.code === 'no_attribution') return skipped('no_attribution');
    if (error.code === 'unsupported_currency') return skipped('unsupported_currency');
    if (error.code === 'invalid_request') return skipped('invalid_sale');
    throw error;
  }
}

function linkOf(customer: CustomerRow | undefined, hints: AttributionHints): Decision['link'] {
  if (!customer || !hints.providerCustomerId || customer.provider_customer_id !== null) return undefined;
  return { customerId: customer.id, providerCustomerId: hints.providerCustomerId };
}

/**
 * A live sale makes attributable the events of its subscription (the subscription step) and of its
 * provider customer when that id is, or is about to be, the customer's link (the provider step).
 */
function unlocksOf(customer: CustomerRow | undefined, sale: SaleFields, hints: AttributionHints): DeferralKeys | undefined {
  if (!customer) return undefined;
  const provider = hints.providerCustomerId;
  const providerCustomerId = provider && (customer.provider_customer_id ?? provider) === provider ? provider : undefined;
  const subscriptionId = sale.subscription_id ?? undefined;
  return subscriptionId || providerCustomerId ? { subscriptionId, providerCustomerId } : undefined;
}
