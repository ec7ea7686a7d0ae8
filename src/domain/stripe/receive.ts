import * as webhooks from '../../store/webhooks.js';
import type { WebhookEventSummary, WebhookOutcome } from '../../store/webhooks.js';
import type { Deps } from '../deps.js';
import { cachedProgram, changingProgram } from '../program-cache.js';
import { requireProgram } from '../provisioning.js';
import { applyDelivery } from './apply.js';
import { reattribute } from './deferred.js';
import { type OutcomeReason, planEvent } from './record.js';
import { verifyStripeEvent } from './verify.js';

export type { OutcomeReason } from './record.js';

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

/**
 * POST /api/v1/webhooks/stripe/:programId: unknown program 404, bad signature 400, then the
 * event's outcome, stored once per (program, event id). A redelivery answers the stored outcome.
 * A recorded sale then re-runs the events it made attributable (deferred.ts).
 */
export async function receiveStripeWebhook(deps: Deps, programId: number, rawBody: Buffer, signature: string | undefined): Promise<WebhookResult> {
  const { program } = await deps.store.read((sql) => cachedProgram(deps.store, sql, programId));
  const event = await verifyStripeEvent(rawBody, signature, program.webhook_secret, deps.clock.now());
  const { row, redelivery, unlocks } = await applyDelivery(deps, {
    programId,
    eventId: event.id,
    type: event.type,
    planned: planEvent(event, programId),
    payload: rawBody.toString('utf8'),
    receivedAt: deps.clock.now(),
  });
  await reattribute(deps, programId, unlocks);
  return resultOf(row, redelivery);
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
  return changingProgram(store, programId, () =>
    store.write(async (sql) => {
      await requireProgram(sql, programId);
      await webhooks.setWebhookSecret(sql, programId, secret);
      return { programId, webhookSecret: secret };
    }),
  );
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
