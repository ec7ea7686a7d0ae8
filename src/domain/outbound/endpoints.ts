import type { CreateEndpointRequest, DeliveryView, EndpointView, EndpointWithSecret, EventType, SentEvent, UpdateEndpointRequest } from '../../api/index.js';
import { AppError } from '../../errors.js';
import type { Sql } from '../../store/db.js';
import * as outbox from '../../store/outbox.js';
import type { DeliveryStatus, EndpointRow } from '../../store/outbox.js';
import { viewedProgram, viewedRow, type Viewer } from '../access.js';
import type { Deps } from '../deps.js';
import { changingEndpoints, emit, redeliver as queueAgain } from './events.js';
import { newSecret } from './signing.js';
import { ROTATION_OVERLAP_MS } from './worker.js';
import { shownUrl } from './shown-url.js';

function endpointView(e: EndpointRow): EndpointView {
  return {
    id: e.id, programId: e.program_id, url: shownUrl(e.url), description: e.description, events: e.events === null ? null : (e.events.split(',') as EventType[]),
    enabled: e.enabled, disabledReason: e.disabled_reason, createdAt: e.created_at.toISOString(),
  };
}

const endpointNotFound = (id: number) => () => new AppError('not_found', `Webhook endpoint ${id} not found`);

/** An endpoint the viewer may see, not removed; else 404 as if it never existed. */
async function viewedEndpoint(sql: Sql, viewer: Viewer, id: number): Promise<EndpointRow> {
  const found = (await outbox.findEndpoints(sql, [id])).find((e) => e.removed_at === null);
  return viewedRow(sql, viewer, found, (e) => e.program_id, endpointNotFound(id));
}

/** POST /api/programs/:programId/webhook-endpoints: the new endpoint with its secret, shown only here. */
export async function createEndpoint(deps: Deps, viewer: Viewer, programId: number, input: CreateEndpointRequest): Promise<EndpointWithSecret> {
  const { store, clock } = deps;
  return changingEndpoints(store, programId, () =>
    store.transaction(async (sql) => {
      await viewedProgram(store, sql, viewer, programId);
      const row: EndpointRow = {
        id: await store.nextId(sql, 'webhook_endpoints'), program_id: programId, url: input.url, description: input.description ?? null,
        events: input.events ? [...new Set(input.events)].join(',') : null, enabled: true, disabled_reason: null, secret: newSecret(),
        previous_secret: null, previous_secret_until: null, created_at: clock.now(), removed_at: null,
      };
      await outbox.insertEndpoint(sql, row);
      return { ...endpointView(row), secret: row.secret };
    }),
  );
}

/** GET /api/programs/:programId/webhook-endpoints, by id, without secrets. */
export async function listEndpoints({ store }: Deps, viewer: Viewer, programId: number): Promise<EndpointView[]> {
  return store.read(async (sql) => {
    await viewedProgram(store, sql, viewer, programId);
    return (await outbox.programEndpoints(sql, [programId])).map(endpointView);
  });
}

/**
 * Runs `change` on a viewed endpoint in a write transaction; the subscriptions cache forgets its
 * program afterwards. Answers what `change` answers.
 */
async function changeEndpoint<T>(deps: Deps, viewer: Viewer, id: number, change: (sql: Sql, endpoint: EndpointRow) => Promise<T>): Promise<T> {
  const programId = await deps.store.read(async (sql) => (await viewedEndpoint(sql, viewer, id)).program_id);
  return changingEndpoints(deps.store, programId, () => deps.store.transaction(async (sql) => change(sql, await viewedEndpoint(sql, viewer, id))));
}

async function reread(sql: Sql, id: number): Promise<EndpointRow> {
  return (await outbox.findEndpoints(sql, [id]))[0];
}

/** PATCH /api/webhook-endpoints/:endpointId: url, events, description, enabled; enabling clears why it was disabled. */
export function updateEndpoint(deps: Deps, viewer: Viewer, id: number, input: UpdateEndpointRequest): Promise<EndpointView> {
  return changeEndpoint(deps, viewer, id, async (sql) => {
    await outbox.updateEndpoint(sql, id, {
      ...(input.url !== undefined && { url: input.url }),
      ...(input.description !== undefined && { description: input.description }),
      ...(input.events !== undefined && { events: input.events === null ? null : [...new Set(input.events)].join(',') }),
      ...(input.enabled !== undefined && { enabled: input.enabled, disabled_reason: input.enabled ? null : 'Disabled by a member' }),
    });
    return endpointView(await reread(sql, id));
  });
}

/** DELETE /api/webhook-endpoints/:endpointId: nothing more is sent to it; its delivery log stays. */
export function removeEndpoint(deps: Deps, viewer: Viewer, id: number): Promise<EndpointView> {
  return changeEndpoint(deps, viewer, id, async (sql) => {
    await outbox.updateEndpoint(sql, id, { removed_at: deps.clock.now(), enabled: false });
    return endpointView(await reread(sql, id));
  });
}

/** POST /api/webhook-endpoints/:endpointId/rotate-secret: a new secret, shown only here; the old one still signs for 24 hours. */
export function rotateSecret(deps: Deps, viewer: Viewer, id: number): Promise<EndpointWithSecret> {
  return changeEndpoint(deps, viewer, id, async (sql, endpoint) => {
    const secret = newSecret();
    await outbox.updateEndpoint(sql, id, {
      secret, previous_secret: endpoint.secret, previous_secret_until: new Date(deps.clock.now().getTime() + ROTATION_OVERLAP_MS),
    });
    return { ...endpointView(endpoint), secret };
  });
}

/** POST /api/webhook-endpoints/:endpointId/test: one `ping` event to this endpoint alone, enabled or not. */
export function sendPing(deps: Deps, viewer: Viewer, id: number): Promise<SentEvent> {
  return deps.store.transaction(async (sql) => {
    const endpoint = await viewedEndpoint(sql, viewer, id);
    const [sent] = await emit(deps, sql, [{ programId: endpoint.program_id, type: 'ping', livemode: true, data: { endpointId: id } }], [id]);
    return { eventId: sent.ref, deliveries: sent.deliveries };
  });
}

/** GET /api/webhook-endpoints/:endpointId/deliveries: newest first, with each one's last attempt. */
export async function listDeliveries({ store }: Deps, viewer: Viewer, id: number, filter: { status?: DeliveryStatus; limit: number }): Promise<DeliveryView[]> {
  return store.read(async (sql) => {
    await viewedEndpoint(sql, viewer, id);
    return (await outbox.endpointDeliveries(sql, id, filter.status, filter.limit)).map((d) => ({
      id: d.id, eventId: d.event_ref, eventType: d.event_type, endpointId: d.target_id, status: d.status, attempts: d.attempts,
      nextAttemptAt: d.next_attempt_at?.toISOString() ?? null,
      lastAttempt: d.last_attempt_at === null
        ? null
        : { at: d.last_attempt_at.toISOString(), statusCode: d.last_status_code, error: d.last_error, durationMs: d.last_duration_ms!, response: d.last_response },
      createdAt: d.created_at.toISOString(),
    }));
  });
}

/**
 * POST /api/webhook-events/:eventId/redeliver: the event again, now, to the endpoint named or to
 * every endpoint it went to, as new deliveries (a failed one too). An unknown event, or an endpoint
 * not of the event's program, is 404.
 */
export async function redeliverEvent(deps: Deps, viewer: Viewer, ref: string, endpointId?: number): Promise<SentEvent> {
  return deps.store.transaction(async (sql) => {
    const found = await outbox.findMessageByRef(sql, ref);
    // A mail's message is no event (docs/mail.md#the-outbox).
    const message = await viewedRow(sql, viewer, found?.channel === 'webhook' ? found : undefined, (m) => m.program_id, () => new AppError('not_found', `Webhook event ${ref} not found`));
    const live = await outbox.programEndpoints(sql, [message.program_id], endpointId === undefined ? undefined : [endpointId]);
    if (endpointId !== undefined && live.length === 0) throw endpointNotFound(endpointId)();
    const targets = endpointId !== undefined ? [endpointId] : (await outbox.messageTargets(sql, message)).filter((id) => live.some((e) => e.id === id));
    return { eventId: ref, deliveries: await queueAgain(deps, sql, message.id, targets) };
  });
}
