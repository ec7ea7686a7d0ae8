import * as webhooks from '../../store/webhooks.js';
import type { DeferralKeys, WebhookEventSummary } from '../../store/webhooks.js';
import type { Deps } from '../deps.js';
import { decide, isUnattributed, planEvent, type PlannedEvent, storeLinks } from './record.js';
import { parseEnvelope } from './schema.js';

/*
 * Deferred attribution: Stripe does not deliver in order, so a renewal can arrive before the
 * checkout that identifies its customer and be skipped as no_attribution. When a sale makes such
 * events attributable (it records a sale of their subscription, or links their provider customer
 * to a customer), they are decided again through the same path and their stored outcome updated.
 * The sale path dedupes by transaction id and the update only applies to an event still
 * unattributed, so concurrent or repeated re-runs record each sale once.
 */

/** Re-runs the program's unattributed events that name the keys; each one recorded may unlock more. */
export async function reattribute(deps: Deps, programId: number, keys: DeferralKeys | undefined): Promise<void> {
  if (!keys) return;
  const pending = await deps.store.read((sql) => webhooks.findUnattributedEvents(sql, programId, keys));
  for (const { event_id, payload } of pending) {
    const planned = plannedFromPayload(payload, programId);
    if (planned) await reattempt(deps, programId, event_id, planned);
  }
}

/** Decides a stored unattributed event again; its updated row, or undefined when nothing changed. */
export async function reattempt(deps: Deps, programId: number, eventId: string, planned: PlannedEvent): Promise<WebhookEventSummary | undefined> {
  const decision = await decide(deps, programId, planned);
  if (isUnattributed(decision)) return undefined;
  const updated = await deps.store.write(async (sql) => {
    const row = await webhooks.updateUnattributedEvent(sql, programId, eventId, { outcome: decision.outcome, reason: decision.reason, sale_id: decision.saleId });
    if (row) await storeLinks(sql, [decision]);
    return row;
  });
  if (updated) await reattribute(deps, programId, decision.unlocks);
  return updated;
}

/** A stored payload was verified when it arrived; one that no longer parses is left as it is. */
function plannedFromPayload(payload: string, programId: number): PlannedEvent | undefined {
  try {
    return planEvent(parseEnvelope(JSON.parse(payload)), programId);
  } catch {
    return undefined;
  }
}
