import { AppError } from '../../errors.js';
import type { CustomerRow } from '../../store/tracking.js';
import * as webhooks from '../../store/webhooks.js';
import type { WebhookEventSummary, WebhookOutcome } from '../../store/webhooks.js';
import type { Deps } from '../deps.js';
import { requireProgram } from '../provisioning.js';
import { saleRequestSchema } from '../sale-request.js';
import { trackSale, type SaleSource } from '../track-sale.js';
import { resolveCustomer } from './attribute.js';
import { checkoutSessionPaid } from './checkout-session.js';
import type { StripeEvent } from './event.js';
import { invoicePaid } from './invoice-paid.js';
import type { EventPlan, SaleFields, AttributionHints, SkipReason } from './plan.js';
import { verifyStripeEvent } from './verify.js';

/** Why an event has its outcome: a skip reason, or a note on a recorded one. */
export type OutcomeReason = SkipReason | 'already_recorded' | 'test_mode';

/** The answer to Stripe, and what a redelivery answers again. */
export type WebhookResult = {
  received: true;
  event_id: string;
  type: string;
  outcome: WebhookOutcome;
  reason: OutcomeReason | null;
  sale_id: number | null;
  /** true when this event id was already processed: nothing changed. */
  redelivery: boolean;
};

type Handler = (object: never, programId: number) => EventPlan;

/** One function per event type; every other type is acknowledged and ignored. */
const handlers = new Map<string, Handler>([
  ['checkout.session.completed', checkoutSessionPaid],
  ['checkout.session.async_payment_succeeded', checkoutSessionPaid],
  ['invoice.payment_succeeded', invoicePaid],
  ['invoice.paid', invoicePaid],
]);

type Decision = {
  outcome: WebhookOutcome;
  reason: OutcomeReason | null;
  saleId: number | null;
  /** A provider customer id to remember on the attributed customer. */
  link?: { customerId: number; providerCustomerId: string };
};

function skipped(reason: SkipReason, outcome: 'ignored' | 'skipped' = 'skipped'): Decision {
  return { outcome, reason, saleId: null };
}

/**
 * POST /api/v1/webhooks/stripe/:programId: unknown program 404, bad signature 400, then the
 * event's outcome, stored once per (program, event id). A redelivery answers the stored outcome.
 */
export async function receiveStripeWebhook(deps: Deps, programId: number, rawBody: Buffer, signature: string | undefined): Promise<WebhookResult> {
  const program = await deps.store.read((sql) => requireProgram(sql, programId));
  const event = await verifyStripeEvent(rawBody, signature, program.webhook_secret, deps.clock.now());

  const seen = await deps.store.read((sql) => webhooks.findWebhookEvent(sql, programId, event.id));
  if (seen) return resultOf(seen, true);

  const handler = handlers.get(event.type);
  const plan: EventPlan = handler ? handler(event.data.object as never, programId) : { outcome: 'ignored', reason: 'unhandled_event_type' };
  const decision = 'sale' in plan ? await recordSale(deps, programId, event, plan.sale, plan.hints) : skipped(plan.reason, plan.outcome);

  // Concurrent deliveries of one event both reach here; the check inside the writer keeps one row.
  return deps.store.write(async (sql) => {
    const existing = await webhooks.findWebhookEvent(sql, programId, event.id);
    if (existing) return resultOf(existing, true);
    if (decision.link) await webhooks.linkProviderCustomer(sql, decision.link.customerId, decision.link.providerCustomerId);
    const row = {
      program_id: programId,
      event_id: event.id,
      type: event.type,
      outcome: decision.outcome,
      reason: decision.reason,
      sale_id: decision.saleId,
      received_at: deps.clock.now(),
      payload: rawBody.toString('utf8'),
    };
    await webhooks.insertWebhookEvent(sql, row);
    return resultOf(row, false);
  });
}

function resultOf(row: WebhookEventSummary, redelivery: boolean): WebhookResult {
  return {
    received: true,
    event_id: row.event_id,
    type: row.type,
    outcome: row.outcome,
    reason: row.reason as OutcomeReason | null,
    sale_id: row.sale_id,
    redelivery,
  };
}

/**
 * Resolves the customer in the order of §6, then records through trackSale with that customer's
 * key: validation, duplicates, window and commission are the sale endpoint's code path.
 */
async function recordSale(deps: Deps, programId: number, event: StripeEvent, sale: SaleFields, hints: AttributionHints): Promise<Decision> {
  const live = event.livemode !== false;
  const customer = await deps.store.read((sql) => resolveCustomer(sql, programId, hints));
  if (!customer && live) return skipped('no_attribution');

  const schema = saleRequestSchema(deps.clock);
  const occurredAt = event.created === undefined ? undefined : new Date(event.created * 1000).toISOString();
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
  try {
    const result = await trackSale(deps, source, request.data);
    if ('data' in result) return { outcome: 'recorded', reason: 'test_mode', saleId: null };
    if (result.sale_id === null) return skipped('attribution_window_expired');
    return { outcome: 'recorded', reason: null, saleId: result.sale_id, link: linkOf(customer, hints) };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.code === 'duplicate_transaction') {
      // The sale exists (an earlier event of the same payment): its outcome, not an error.
      if (!live) return { outcome: 'recorded', reason: 'test_mode', saleId: null };
      const saleId = (error.details as { sale_id: number | null }).sale_id;
      if (saleId === null) return skipped('attribution_window_expired');
      return { outcome: 'recorded', reason: 'already_recorded', saleId, link: linkOf(customer, hints) };
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

export type WebhookEventView = {
  eventId: string;
  type: string;
  outcome: WebhookOutcome;
  reason: string | null;
  saleId: number | null;
  receivedAt: string;
};

/**
 * POST /api/admin/programs/:programId/webhook-secret: Stripe generates each endpoint's signing
 * secret, so the program's generated one is replaced by it when the endpoint is connected.
 */
export async function setWebhookSecret({ store }: Deps, programId: number, secret: string): Promise<{ programId: number; webhookSecret: string }> {
  return store.write(async (sql) => {
    await requireProgram(sql, programId);
    await webhooks.setWebhookSecret(sql, programId, secret);
    return { programId, webhookSecret: secret };
  });
}

/** GET /api/admin/programs/:programId/webhook-events: newest first. */
export async function listWebhookEvents({ store }: Deps, programId: number, limit: number): Promise<WebhookEventView[]> {
  return store.read(async (sql) => {
    await requireProgram(sql, programId);
    return (await webhooks.listWebhookEvents(sql, programId, limit)).map((e) => ({
      eventId: e.event_id,
      type: e.type,
      outcome: e.outcome,
      reason: e.reason,
      saleId: e.sale_id,
      receivedAt: e.received_at.toISOString(),
    }));
  });
}
