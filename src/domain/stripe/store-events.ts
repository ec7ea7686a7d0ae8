import type { Sql } from '../../store/db.js';
import { programKey } from '../../store/program-key.js';
import * as webhooks from '../../store/webhooks.js';
import type { Unlocks, WebhookEventRow, WebhookEventSummary } from '../../store/webhooks.js';
import type { Deps } from '../deps.js';
import { batched, type BatchRun } from '../write-batcher.js';
import { decideEvents, deferralKeys, isDeferred } from './decide.js';
import type { PlannedEvent } from './plan.js';

/** A verified delivery to decide and store once per (program, event id); its body is kept only if it is skipped. */
export type Delivery = { programId: number; eventId: string; type: string; planned: PlannedEvent; payload: string; receivedAt: Date };
/** A stored event waiting for a sale or link (no_attribution, sale_not_found), to decide again (rerun.ts). */
type Rerun = { programId: number; eventId: string; planned: PlannedEvent };

/** The event's row as answered; `unlocks` when its new sale or link makes other stored events decidable. */
export type Applied = { row: WebhookEventSummary; redelivery: boolean; unlocks?: Unlocks };

type Work = { kind: 'delivery'; item: Delivery } | { kind: 'rerun'; item: Rerun };
/** One delivery or re-run of the batch, with its event's key and, once decided, its answer. */
type Entry = Work & { key: string; applied?: Applied };

/**
 * Stage 4: deliveries and re-runs of a batch in the writer's transaction. The stored events are
 * looked up by key (on a first run only the re-runs'), the rest decided together (decide.ts, which
 * orders the events of one Stripe customer or subscription), then the new rows appended in one go.
 * Deciding in the writer sees every committed sale, so an event is never stored unattributed after
 * the sale that attributes it committed; when a later event of the batch attributes an earlier one,
 * the earlier one is stored unattributed and re-run after the commit (the later one's `unlocks`).
 */
async function storeEvents(deps: Deps, sql: Sql, work: Work[], run: BatchRun): Promise<Array<Applied | undefined>> {
  const entries: Entry[] = work.map((w) => ({ ...w, key: programKey(w.item.programId, w.item.eventId) }));
  // A redelivery is rare: the first run leaves it to the event key, which fails the append (rolled back, run again).
  const stored = await webhooks.findWebhookEvents(sql, entries.filter((e) => run.afterFailure || e.kind === 'rerun').map((e) => e.key));
  const toDecide = firstOpenPerEvent(entries, stored);
  const decisions = await decideEvents(deps, sql, toDecide.map((e) => e.item), run);

  const fresh: WebhookEventRow[] = [];
  const changed: WebhookEventSummary[] = [];
  toDecide.forEach((entry, i) => {
    const decision = decisions[i];
    const outcome = { outcome: decision.outcome, reason: decision.reason, sale_id: decision.saleId };
    let row: WebhookEventSummary;
    if (entry.kind === 'delivery') {
      const { item } = entry;
      const keys = deferralKeys(item.planned);
      const event: WebhookEventRow = {
        program_id: item.programId, event_id: item.eventId, type: item.type, ...outcome, received_at: item.receivedAt,
        payload: decision.outcome === 'skipped' ? item.payload : null,
        subscription_id: keys.subscriptionId ?? null, provider_customer_id: keys.providerCustomerId ?? null,
        payment_intent_id: keys.paymentIntentId ?? null, invoice_id: keys.invoiceId ?? null, charge_id: keys.chargeId ?? null,
      };
      fresh.push(event);
      row = event;
    } else if (isDeferred(decision)) {
      return; // still waiting: nothing changes
    } else {
      row = { ...stored.get(entry.key)!, ...outcome };
      changed.push(row);
    }
    stored.set(entry.key, row);
    entry.applied = { row, redelivery: false, unlocks: decision.unlocks };
  });
  await webhooks.appendWebhookEvents(sql, fresh);
  for (const row of changed) await webhooks.updateEventOutcome(sql, row);
  // Not decided here: a delivery answers its event's row as a redelivery; a re-run found nothing to do.
  return entries.map((e) => e.applied ?? (e.kind === 'delivery' ? { row: stored.get(e.key)!, redelivery: true } : undefined));
}

/**
 * The entries with something to decide, the first of each event id: a new delivery, or a re-run of
 * an event still waiting (after a redelivery of it, too). The others answer the event's row.
 */
function firstOpenPerEvent(entries: Entry[], stored: Map<string, WebhookEventSummary>): Entry[] {
  const deciding = new Set<string>();
  return entries.filter(({ kind, key }) => {
    const current = stored.get(key);
    const open = kind === 'delivery' ? !current : current !== undefined && isDeferred(current);
    if (!open || deciding.has(key)) return false;
    deciding.add(key);
    return true;
  });
}

const apply = batched(storeEvents);

export function applyDelivery(deps: Deps, delivery: Delivery): Promise<Applied> {
  // A delivery is always answered with its event's row.
  return apply(deps, { kind: 'delivery', item: delivery }) as Promise<Applied>;
}

/** The event's new row, or undefined when it no longer waits or still does. */
export function applyRerun(deps: Deps, rerun: Rerun): Promise<Applied | undefined> {
  return apply(deps, { kind: 'rerun', item: rerun });
}
