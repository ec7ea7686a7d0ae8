import * as webhooks from '../../store/webhooks.js';
import type { Unlocks } from '../../store/webhooks.js';
import type { Deps } from '../deps.js';
import { planEvent } from './plan.js';
import { parseEnvelope } from './schema.js';
import { applyRerun } from './store-events.js';

/*
 * Stage 5, deferred events: Stripe does not deliver in order, so a renewal can arrive before the
 * checkout that identifies its customer and be skipped as no_attribution, and a refund before the
 * sale or invoice payment that identifies its sale and be skipped as sale_not_found. When a sale or
 * link makes such events decidable (it records a sale of their subscription, links their provider
 * customer to a customer, or carries their payment's ids), they are decided again in the writer
 * (store-events.ts) and their stored outcome updated. The sale path dedupes by transaction id, the
 * refund path by refund id, and a re-run only applies to an event still waiting, so concurrent or
 * repeated re-runs record each sale and refund once.
 */

/**
 * Re-runs the program's waiting events that the unlocks (of one event, or of a page of reconciled
 * events) make decidable; each one recorded may unlock more.
 */
export async function reattribute(deps: Deps, programId: number, unlocks: ReadonlyArray<Unlocks | undefined>): Promise<void> {
  const found = unlocks.filter((u): u is Unlocks => u !== undefined);
  if (found.length === 0) return;
  const pending = await deps.store.read((sql) => webhooks.findDeferredEvents(sql, programId, found));
  for (const { event_id: eventId, payload } of pending) {
    const planned = plannedFromPayload(payload, programId);
    const applied = planned && (await applyRerun(deps, { programId, eventId, planned }));
    if (applied) await reattribute(deps, programId, [applied.unlocks]);
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
