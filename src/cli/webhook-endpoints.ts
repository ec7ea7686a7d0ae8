import { Flags } from '@oclif/core';
import { EVENT_TYPES, type EventType } from '../api/constants.js';
import type { DeliveryView, EndpointView } from '../api/index.js';
import { formatWhen, renderObject, renderTable } from './output.js';

/** `--events a,b`: event types, comma-separated, each one partnerkit sends. */
export const eventsFlag = Flags.custom<EventType[]>({
  description: `event types, comma-separated (default: every type): ${EVENT_TYPES.join(', ')}`,
  parse: async (input) => {
    const types = input.split(',').map((part) => part.trim());
    const unknown = types.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
    if (unknown.length > 0) throw new Error(`--events: unknown event type ${unknown.join(', ')}; the types are ${EVENT_TYPES.join(', ')}`);
    return types as EventType[];
  },
})();

export const endpointFlag = Flags.integer({ description: 'webhook endpoint id', required: true, min: 1 });

/** One endpoint, a field a line; `events` reads `all` when it takes every type, as in the list. */
export function renderEndpoint(endpoint: EndpointView): string {
  return renderObject({ ...endpoint, events: endpoint.events ?? 'all' });
}

/** Endpoints, one line each. */
export function renderEndpoints(endpoints: EndpointView[], empty: string): string {
  return renderTable(
    [
      { header: 'id', value: (e) => e.id, align: 'right' },
      { header: 'url', value: (e) => e.url, shrink: 'middle' },
      { header: 'events', value: (e) => e.events ?? 'all', shrink: 'end' },
      { header: 'enabled', value: (e) => (e.enabled ? 'yes' : 'no') },
    ],
    endpoints,
    { empty },
  );
}

/** Deliveries, newest first, with their last attempt's answer. */
export function renderDeliveries(deliveries: DeliveryView[], now: Date, empty: string): string {
  return renderTable(
    [
      { header: 'event', value: (d) => d.eventId, shrink: 'middle' },
      { header: 'type', value: (d) => d.eventType, shrink: 'end' },
      { header: 'status', value: (d) => d.status },
      { header: 'tries', value: (d) => d.attempts, align: 'right' },
      { header: 'last answer', value: (d) => (d.lastAttempt === null ? null : (d.lastAttempt.statusCode ?? d.lastAttempt.error)), shrink: 'end' },
      { header: 'next', value: (d) => (d.nextAttemptAt === null ? null : formatWhen(d.nextAttemptAt, now)) },
    ],
    deliveries,
    { empty },
  );
}
