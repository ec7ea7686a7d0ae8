import type { Sql } from '../../store/db.js';
import * as webhooks from '../../store/webhooks.js';
import type { DeferralKeys, WebhookEventRow, WebhookEventSummary } from '../../store/webhooks.js';
import type { Deps } from '../deps.js';
import { batched, type Outcome } from '../write-batcher.js';
import { decideEvents, deferralKeys, isUnattributed, type PlannedEvent } from './record.js';

/** A verified delivery to decide and store once per (program, event id); its body is kept if it is skipped (migration 005). */
export type Delivery = { programId: number; eventId: string; type: string; planned: PlannedEvent; payload: string; receivedAt: Date };
/** A stored event skipped as no_attribution, to decide again (deferred.ts). */
export type Rerun = { programId: number; eventId: string; planned: PlannedEvent };

/** The event's row as answered; `unlocks` when its new sale makes other stored events attributable. */
export type Applied = { row: WebhookEventSummary; redelivery: boolean; unlocks?: DeferralKeys };

type Work = { kind: 'delivery'; item: Delivery } | { kind: 'rerun'; item: Rerun };

/**
 * Deliveries and re-runs of a batch in the writer's transaction: the stored events looked up by key
 * (on a first run only the re-runs'), the others decided together (decideEvents, which orders the
 * events of one Stripe customer or subscription), then one append of the new rows. Deciding in the
 * writer sees every committed sale, so an event is never stored unattributed after the sale that
 * attributes it committed; when a later event of the batch attributes an earlier one, the earlier
 * one is stored unattributed and re-run after the commit (the later one's `unlocks`).
 */
async function applyEvents(deps: Deps, sql: Sql, work: Work[], run: { afterFailure: boolean }): Promise<Array<Outcome<Applied | undefined>>> {
  const keys = work.map(({ item }) => webhooks.eventKey(item.programId, item.eventId));
  // A redelivery is rare: the first run leaves it to the event key, which fails the append (rolled back, run again).
  const current = await webhooks.findWebhookEvents(sql, run.afterFailure ? keys : keys.filter((_, i) => work[i].kind === 'rerun'));
  // The first item of an event id that has something to decide is decided: a new delivery, or a
  // re-run of an event still unattributed (after a redelivery of it, too); the others answer its row.
  const deciding = new Set<string>();
  const toDecide = work.flatMap(({ kind }, i) => {
    const stored = current.get(keys[i]);
    const open = kind === 'delivery' ? !stored : stored !== undefined && isUnattributed(stored);
    if (!open || deciding.has(keys[i])) return [];
    deciding.add(keys[i]);
    return [i];
  });
  const decisions = await decideEvents(deps, sql, toDecide.map((i) => work[i].item), run);

  const results = new Map<number, Applied>();
  const fresh: WebhookEventRow[] = [];
  const changed: WebhookEventSummary[] = [];
  toDecide.forEach((i, d) => {
    const decision = decisions[d];
    const outcome = { outcome: decision.outcome, reason: decision.reason, sale_id: decision.saleId };
    const { kind, item } = work[i];
    let row: WebhookEventSummary;
    if (kind === 'delivery') {
      const { subscriptionId, providerCustomerId } = deferralKeys(item.planned);
      const stored: WebhookEventRow = {
        program_id: item.programId, event_id: item.eventId, type: item.type, ...outcome, received_at: item.receivedAt,
        payload: decision.outcome === 'skipped' ? item.payload : null,
        subscription_id: subscriptionId ?? null, provider_customer_id: providerCustomerId ?? null,
      };
      fresh.push(stored);
      row = stored;
    } else if (isUnattributed(decision)) {
      return; // still unattributed: nothing changes
    } else {
      row = { ...current.get(keys[i])!, ...outcome };
      changed.push(row);
    }
    current.set(keys[i], row);
    results.set(i, { row, redelivery: false, unlocks: decision.unlocks });
  });
  await webhooks.appendWebhookEvents(sql, fresh);
  for (const row of changed) await webhooks.updateEventOutcome(sql, row);
  // Everything not decided here: a delivery answers the event's row as a redelivery; a re-run found nothing to do.
  return work.map(({ kind }, i): Outcome<Applied | undefined> => {
    if (results.has(i)) return { ok: true, value: results.get(i)! };
    return { ok: true, value: kind === 'delivery' ? { row: current.get(keys[i])!, redelivery: true } : undefined };
  });
}

const apply = batched(applyEvents);

export function applyDelivery(deps: Deps, delivery: Delivery): Promise<Applied> {
  // A delivery is always answered with its event's row.
  return apply(deps, { kind: 'delivery', item: delivery }) as Promise<Applied>;
}

/** The event's new row, or undefined when it is no longer unattributed or still is. */
export function applyRerun(deps: Deps, rerun: Rerun): Promise<Applied | undefined> {
  return apply(deps, { kind: 'rerun', item: rerun });
}
