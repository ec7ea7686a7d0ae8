import type { Sql } from '../../store/db.js';
import * as webhooks from '../../store/webhooks.js';
import type { DeferralKeys, WebhookEventRow, WebhookEventSummary, WebhookOutcome } from '../../store/webhooks.js';
import type { Deps } from '../deps.js';
import { cachedProgram, changingProgram } from '../program-cache.js';
import { requireProgram } from '../provisioning.js';
import { batched, type Outcome } from '../write-batcher.js';
import { reattempt, reattribute } from './deferred.js';
import { attributableNow, decide, type Decision, deferralKeys, isUnattributed, type OutcomeReason, planEvent, storeLinks } from './record.js';
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

  const seen = await deps.store.read((sql) => webhooks.findWebhookEvent(sql, programId, event.id));
  if (seen) return resultOf(seen, true);

  const planned = planEvent(event, programId);
  const decision = await decide(deps, programId, planned);
  const keys = deferralKeys(planned);

  // Concurrent deliveries of one event both reach here; the event's key keeps one row.
  const stored = await storeEvent(deps, {
    decision,
    keys,
    row: {
      program_id: programId,
      event_id: event.id,
      type: event.type,
      outcome: decision.outcome,
      reason: decision.reason,
      sale_id: decision.saleId,
      received_at: deps.clock.now(),
      payload: rawBody.toString('utf8'),
      subscription_id: keys.subscriptionId ?? null,
      provider_customer_id: keys.providerCustomerId ?? null,
    },
  });
  if (stored.redelivery) return resultOf(stored.row, true);
  if (stored.retry) return resultOf((await reattempt(deps, programId, event.id, planned)) ?? stored.row, false);
  await reattribute(deps, programId, decision.unlocks);
  return resultOf(stored.row, false);
}

type DecidedEvent = { row: WebhookEventRow; decision: Decision; keys: DeferralKeys };
type StoredEvent = { row: WebhookEventSummary; redelivery: boolean; retry: boolean };

/**
 * Stores a batch of decided events in one transaction. The first run leaves an event stored
 * meanwhile to the key (it fails the append); a run after a failure looks the keys up, and an event
 * found, or stored earlier in the batch, answers that row as a redelivery.
 */
async function storeEvents(_deps: Deps, sql: Sql, events: DecidedEvent[], { afterFailure }: { afterFailure: boolean }): Promise<Array<Outcome<StoredEvent>>> {
  const keyOf = ({ row }: DecidedEvent) => webhooks.eventKey(row.program_id, row.event_id);
  const known = afterFailure ? await webhooks.findWebhookEvents(sql, events.map(keyOf)) : new Map<string, WebhookEventSummary>();
  const fresh: DecidedEvent[] = [];
  const results = events.map((event) => {
    const found = known.get(keyOf(event));
    if (found) return { row: found, redelivery: true, retry: false };
    known.set(keyOf(event), event.row);
    fresh.push(event);
    return { row: event.row, redelivery: false, retry: false };
  });
  await storeLinks(sql, fresh.map((e) => e.decision));
  await webhooks.appendWebhookEvents(sql, fresh.map((e) => e.row));
  // A sale that unlocks an unattributed event may have committed after it was decided, before it was stored.
  for (const [i, event] of events.entries()) {
    if (!results[i].redelivery && isUnattributed(event.decision)) results[i].retry = await attributableNow(sql, event.row.program_id, event.keys);
  }
  return results.map((value) => ({ ok: true, value }));
}

const storeEvent = batched(storeEvents);

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
