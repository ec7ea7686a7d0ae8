import { randomToken } from '../secrets.js';
import type { EventType } from '../../api/index.js';
import type { IdAllocator, Sql, Store } from '../../store/db.js';
import * as outbox from '../../store/outbox.js';
import type { Deps } from '../deps.js';
import { cacheLifetime, ForgetfulCache, perStore } from '../store-cache.js';

/** An event a change causes: its program, type, mode and `data`, the object after the change (docs/outbound-webhooks.md#the-body). */
export type OutboundEvent = { programId: number; type: EventType; livemode: boolean; data: unknown };

/** What a program's enabled endpoints subscribe to: each endpoint and its types (null: every type). */
type Subscriptions = ReadonlyArray<{ endpoint: outbox.EndpointRow; events: ReadonlySet<string> | null }>;

// Every sale batch asks which endpoints of its programs want its events: the answer is remembered,
// and forgotten when an endpoint changes (changingEndpoints) or, on a shared database, after a
// while (docs/store-engines.md#what-a-process-may-remember). A program without endpoints costs the
// sale path no statement (docs/outbound-webhooks.md#the-outbox).
const cacheOf = perStore((store) => new ForgetfulCache<number, Subscriptions>(Infinity, cacheLifetime(store)));

async function subscriptions(store: Store, sql: Sql, programIds: number[]): Promise<Map<number, Subscriptions>> {
  return cacheOf(store).getMany(programIds, async (missing) => {
    const rows = (await outbox.programEndpoints(sql, missing)).filter((e) => e.enabled);
    return missing.map((programId) => [
      programId,
      rows.filter((e) => e.program_id === programId).map((e) => ({ endpoint: e, events: e.events === null ? null : new Set(e.events.split(',')) })),
    ] as const);
  });
}

/** Those of a program's endpoints that take events of `type`. */
function takers(subscribed: Subscriptions | undefined, type: EventType): outbox.EndpointRow[] {
  return (subscribed ?? []).filter((e) => type === 'ping' || e.events === null || e.events.has(type)).map((e) => e.endpoint);
}

/** A delivery committed a moment ago as its message's target, with what sending it takes; its row is not written yet. */
export type FreshDelivery = { delivery: outbox.DeliveryRow; message: outbox.MessageRow; endpoint: outbox.EndpointRow };

/**
 * The delivery worker of a database no other process writes, as the outbox sees it: `fresh`, the
 * deliveries of events that committed, which it sends and writes (docs/outbound-webhooks.md#the-outbox);
 * `due`, that others are due now and a claim finds them (a test ping, a redelivery, a mail).
 */
export type OutboxListener = { fresh(deliveries: FreshDelivery[]): void; due(): void };

const listenerOf = perStore((): { current?: OutboxListener } => ({}));

/**
 * Makes `listener` the store's delivery worker: from now on the events committed are handed to it,
 * their deliveries written by it, so it sends them without a claim and a sale writes one table fewer
 * (docs/outbound-webhooks.md#delivery). Answers the function that stops it. Only where this process
 * alone writes the database: elsewhere another instance claims deliveries too, and they are written
 * with their events.
 */
export function onOutboxWrites(store: Store, listener: OutboxListener): () => void {
  if (store.shared) return () => {};
  const slot = listenerOf(store);
  if (slot.current) throw new Error('a store has one delivery worker');
  slot.current = listener;
  return () => {
    if (slot.current === listener) slot.current = undefined;
  };
}

/** Tells the worker, once the transaction of `sql` committed, that deliveries it wrote are due. */
export function announceDue(store: Store, sql: Sql): void {
  const listener = listenerOf(store).current;
  if (listener) sql.afterCommit(() => listener.due());
}

/** Whether any endpoint of the program takes events of `type`: the caller then builds their data. */
export async function wanted(store: Store, sql: Sql, programId: number, type: EventType): Promise<boolean> {
  return takers((await subscriptions(store, sql, [programId])).get(programId), type).length > 0;
}

/** Forgets what the cache holds of a program's endpoints, after a change committed. */
export function endpointsChanged(store: Store, programId: number): void {
  cacheOf(store).forget((id) => id === programId);
}

/** Runs a change of a program's endpoints; the cache forgets the program once it settled. */
export function changingEndpoints<T>(store: Store, programId: number, change: () => Promise<T>): Promise<T> {
  return cacheOf(store).changing(change, (id) => id === programId);
}

/** The body of an event, byte for byte what is signed and sent on every attempt (docs/outbound-webhooks.md#the-body). */
function body(ref: string, event: OutboundEvent, now: Date): string {
  return JSON.stringify({ id: ref, type: event.type, created_at: now.toISOString(), livemode: event.livemode, program_id: event.programId, data: event.data });
}

/** A message's deliveries to `targets`, due now. */
function deliveryRows(nextId: IdAllocator, messageId: number, targets: readonly number[], now: Date): outbox.DeliveryRow[] {
  return targets.map((target) => ({
    id: nextId('outbox_deliveries'), message_id: messageId, channel: 'webhook', target_id: target, status: 'pending', attempts: 0, next_attempt_at: now,
    lease_owner: null, lease_until: null, created_at: now,
  }));
}

/**
 * Writes events into the outbox inside the caller's transaction, one delivery per subscribed
 * endpoint (or per endpoint of `only`), due now: they commit or roll back with the change. Where
 * the process's delivery worker listens, an event names its endpoints as `targets` and the worker
 * writes the deliveries once it has them (docs/outbound-webhooks.md#the-outbox). Events nobody
 * subscribes to write nothing. Answers each written event's id and deliveries.
 */
export async function emit(
  { store, clock }: Deps,
  sql: Sql,
  events: readonly OutboundEvent[],
  only?: readonly number[],
): Promise<Array<{ ref: string; deliveries: number[] }>> {
  const now = clock.now();
  // The subscribed endpoints' rows come from the cache; `only` names endpoints by id (a test ping).
  const subscribed = only ? undefined : await subscriptions(store, sql, [...new Set(events.map((e) => e.programId))]);
  const targeted: Array<{ event: OutboundEvent; targets: readonly number[]; endpoints?: readonly outbox.EndpointRow[] }> = [];
  for (const event of events) {
    const endpoints = subscribed && takers(subscribed.get(event.programId), event.type);
    const targets = only ?? endpoints!.map((e) => e.id);
    if (targets.length > 0) targeted.push({ event, targets, endpoints });
  }
  if (targeted.length === 0) return [];
  const worker = only ? undefined : listenerOf(store).current;
  const deliveryCount = targeted.reduce((n, t) => n + t.targets.length, 0);
  const nextId = await store.idAllocator(sql, { outbox_messages: targeted.length, outbox_deliveries: deliveryCount });
  const messages: outbox.MessageRow[] = [];
  const deliveries: outbox.DeliveryRow[] = [];
  const fresh: FreshDelivery[] = [];
  const sent = targeted.map(({ event, targets, endpoints }) => {
    const id = nextId('outbox_messages');
    const ref = randomToken('evt_', 16);
    const message: outbox.MessageRow = {
      id, channel: 'webhook', program_id: event.programId, type: event.type, ref, body: body(ref, event, now), created_at: now, targets: worker ? targets.join(',') : null,
    };
    messages.push(message);
    const rows = deliveryRows(nextId, id, targets, now);
    if (worker) fresh.push(...rows.map((delivery, i) => ({ delivery, message, endpoint: endpoints![i] })));
    else deliveries.push(...rows);
    return { ref, deliveries: rows.map((d) => d.id) };
  });
  await outbox.appendMessages(sql, messages);
  await outbox.appendDeliveries(sql, deliveries);
  if (worker) sql.afterCommit(() => worker.fresh(fresh));
  if (only) announceDue(store, sql);
  return sent;
}

/**
 * Writes, as due now, the deliveries still to be written: a process that stopped or crashed before
 * writing them leaves them to the next worker, before it listens (docs/outbound-webhooks.md#the-outbox).
 */
export async function writeLeftDeliveries({ store, clock }: Deps, sql: Sql): Promise<void> {
  const left = await outbox.untakenTargets(sql);
  if (left.length === 0) return;
  await outbox.takeTargets(sql, left.map((l) => l.message.id));
  const nextId = await store.idAllocator(sql, { outbox_deliveries: left.reduce((n, l) => n + l.targets.length, 0) });
  await outbox.appendDeliveries(sql, left.flatMap((l) => deliveryRows(nextId, l.message.id, l.targets, clock.now())));
}

/** New deliveries of a stored message to `targets`, due now (a redelivery); answers their ids. */
export async function redeliver({ store, clock }: Deps, sql: Sql, messageId: number, targets: readonly number[]): Promise<number[]> {
  if (targets.length === 0) return [];
  const rows = deliveryRows(await store.idAllocator(sql, { outbox_deliveries: targets.length }), messageId, targets, clock.now());
  await outbox.appendDeliveries(sql, rows);
  announceDue(store, sql);
  return rows.map((d) => d.id);
}
