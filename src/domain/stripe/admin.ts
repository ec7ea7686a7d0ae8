import type { WebhookEvent, WebhookSecret } from '../../api/index.js';
import * as webhooks from '../../store/webhooks.js';
import type { Deps } from '../deps.js';
import { changingProgram } from '../program-cache.js';
import { requireProgram } from '../provisioning.js';

/**
 * POST /api/admin/programs/:programId/webhook-secret: Stripe generates each endpoint's signing
 * secret, so the program's generated one is replaced by it when the endpoint is connected.
 */
export async function setWebhookSecret({ store }: Deps, programId: number, secret: string): Promise<WebhookSecret> {
  return changingProgram(store, programId, () =>
    store.transaction(async (sql) => {
      await requireProgram(sql, programId);
      await webhooks.updateWebhookSecret(sql, programId, secret);
      return { programId, webhookSecret: secret };
    }),
  );
}

/** GET /api/admin/programs/:programId/webhook-events: newest first. */
export async function listWebhookEvents({ store }: Deps, programId: number, limit: number): Promise<WebhookEvent[]> {
  return store.read(async (sql) => {
    await requireProgram(sql, programId);
    return (await webhooks.recentWebhookEvents(sql, programId, limit)).map((e) => ({
      eventId: e.event_id,
      type: e.type,
      outcome: e.outcome,
      reason: e.reason,
      saleId: e.sale_id,
      receivedAt: e.received_at.toISOString(),
    }));
  });
}
