import * as webhooks from '../../store/webhooks.js';
import type { DeferralKeys } from '../../store/webhooks.js';
import type { Deps } from '../deps.js';
import { planEvent } from './plan.js';
import { parseEnvelope } from './schema.js';
import { applyRerun } from './store-events.js';

/*
 * Stage 5, deferred attribution: Stripe does not deliver in order, so a renewal can arrive before the
 * checkout that identifies its customer and be skipped as no_attribution. When a sale makes such
 * events attributable (it records a sale of their subscription, or links their provider customer
 * to a customer), they are decided again in the writer (store-events.ts) and their stored outcome updated.
 * The sale path dedupes by transaction id and a re-run only applies to an event still
 * unattributed, so concurrent or repeated re-runs record each sale once.
 */

/** Re-runs the program's unattributed events that name the keys; each one recorded may unlock more. */
export async function reattribute(deps: Deps, programId: number, keys: DeferralKeys | undefined): Promise<void> {
  if (!keys) return;
  const pending = await deps.store.read((sql) => webhooks.findUnattributedEvents(sql, programId, keys));
  for (const { event_id: eventId, payload } of pending) {
    const planned = plannedFromPayload(payload, programId);
    const applied = planned && (await applyRerun(deps, { programId, eventId, planned }));
    if (applied) await reattribute(deps, programId, applied.unlocks);
  }
}

/** A stored payload was verified when it arrived; one that no longer parses is left as it is. */
function plannedFromPayload(payload: string, programId: number) {
  try {
    return planEvent(parseEnvelope(JSON.parse(payload)), programId);
  } catch {
    return undefined;
  }
}
