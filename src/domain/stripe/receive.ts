import type { OutcomeReason, WebhookResult } from '../../api/index.js';
import type { Unlocks, WebhookEventSummary } from '../../store/webhooks.js';
import type { Deps } from '../deps.js';
import { cachedProgram } from '../program-cache.js';
import { escapeLoneSurrogates } from '../unicode.js';
import { isDeferred } from './decide.js';
import { planEvent } from './plan.js';
import { reattribute } from './rerun.js';
import { applyDelivery, applyRerun } from './store-events.js';
import { verifyStripeEvent } from './verify.js';
import type { VerifiedEvent } from './schema.js';

/*
 * The Stripe webhook pipeline (docs/architecture.md#the-webhook-pipeline), one file per stage:
 *   1. verify.ts        the signature over the raw body, against the program's secret and the service clock
 *   2. plan.ts          pure: what the event type asks for (checkout-session.ts, invoice-paid.ts), no lookups
 *   3. decide.ts        in the writer's transaction: attribution (attribute.ts) and the sale (recordSales)
 *   4. store-events.ts  the batch of deliveries: stored once per (program, event id), redeliveries answered
 *   5. rerun.ts         events skipped as no_attribution that a new sale made attributable, decided again
 * admin.ts holds the operator's side (signing secret, event listing).
 */


/**
 * POST /api/v1/webhooks/stripe/:programId: unknown program 404, bad signature 400, then the
 * event's outcome, stored once per (program, event id). A redelivery answers the stored outcome.
 * A recorded sale then re-runs the events it made attributable.
 */
export async function receiveStripeWebhook(deps: Deps, programId: number, rawBody: Buffer, signature: string | undefined): Promise<WebhookResult> {
  const { program } = await deps.store.read((sql) => cachedProgram(deps.store, sql, programId));
  const event = await verifyStripeEvent(rawBody, signature, program.webhook_secret, deps.clock.now());
  return receiveEvent(deps, programId, event, rawBody.toString('utf8'));
}

/** Stages 2–5 of a verified delivery; `payload` is its text as stored. */
async function receiveEvent(deps: Deps, programId: number, event: VerifiedEvent, payload: string): Promise<WebhookResult> {
  const { result, unlocks } = await applyEvent(deps, programId, event, payload);
  await reattribute(deps, programId, [unlocks]);
  return result;
}

/**
 * Stages 2–4 of an event Stripe vouches for: a verified delivery, or an event read from Stripe's
 * API by a reconciliation (docs/stripe-reconciliation.md), which re-runs the waiting events of a
 * whole page at once (stage 5). Answers the result and what its sale or link unlocks.
 */
export async function applyEvent(deps: Deps, programId: number, event: VerifiedEvent, payload: string): Promise<{ result: WebhookResult; unlocks?: Unlocks }> {
  const delivery = {
    programId,
    // Stored and answered as well-formed text, so the event key matches on every redelivery (docs/webhooks.md#stored-once-per-event-id).
    eventId: escapeLoneSurrogates(event.id),
    type: escapeLoneSurrogates(event.type),
    planned: planEvent(event, programId),
    payload,
    receivedAt: deps.clock.now(),
  };
  let { row, redelivery, unlocks } = await applyDelivery(deps, delivery);
  if (deps.store.shared && !redelivery && isDeferred(row)) {
    // Another instance may have committed what this event waits for after this one decided, and
    // looked for waiting events before this one committed: decided again now, whichever of the two
    // committed last sees the other (docs/store-engines.md#what-a-process-may-remember).
    const rerun = await applyRerun(deps, delivery);
    if (rerun) ({ row, unlocks } = rerun);
  }
  return { result: resultOf(row, redelivery), unlocks };
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
