import { z } from 'zod';
import { instant, pathId } from './common.js';
import { DELIVERY_STATUSES, EVENT_TYPES } from './constants.js';

/** The longest endpoint URL accepted. */
export const MAX_ENDPOINT_URL = 2048;

export const endpointParams = z.object({ programId: pathId, endpointId: pathId });

const url = z
  .string()
  .max(MAX_ENDPOINT_URL, `at most ${MAX_ENDPOINT_URL} characters`)
  .refine((value) => URL.canParse(value) && ['http:', 'https:'].includes(new URL(value).protocol), 'an http or https URL');
const events = z.array(z.enum(EVENT_TYPES)).min(1).describe('The event types sent; every type when left out');
const description = z.string().max(1000);

export const createEndpointRequestSchema = z.object({ url, events: events.optional(), description: description.optional() });
export const updateEndpointRequestSchema = z
  .object({ url, events: events.nullable().describe('null: every type'), description: description.nullable(), enabled: z.boolean() })
  .partial()
  .refine((changes) => Object.keys(changes).length > 0, 'at least one of url, events, description, enabled');

export const endpointSchema = z.object({
  id: z.int(),
  programId: z.int(),
  url: z.string().describe('Without the credentials it may carry'),
  description: z.string().nullable(),
  events: z.array(z.enum(EVENT_TYPES)).nullable().describe('null: every type'),
  enabled: z.boolean(),
  disabledReason: z.string().nullable(),
  createdAt: instant,
});
export const endpointWithSecretSchema = endpointSchema.extend({ secret: z.string().describe('whsec_…; shown only here') });

export const deliveriesQuerySchema = z.object({
  status: z.enum(DELIVERY_STATUSES).optional(),
  limit: z.coerce.number<number>().int().min(1).max(1000).default(50),
});

export const deliverySchema = z.object({
  id: z.int(),
  eventId: z.string(),
  eventType: z.string(),
  endpointId: z.int(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.int(),
  nextAttemptAt: instant.nullable(),
  lastAttempt: z
    .object({
      at: instant,
      statusCode: z.int().nullable(),
      error: z.string().nullable().describe('The network error when no answer came'),
      durationMs: z.int(),
      response: z.string().nullable().describe('The first 1 KiB of the answer'),
    })
    .nullable(),
  createdAt: instant,
});

export const redeliverRequestSchema = z.object({
  eventId: z.string().regex(/^evt_[A-Za-z0-9_-]{1,100}$/, 'an event id, evt_…'),
  endpointId: z.int().min(1).optional(),
});

export const sentEventSchema = z.object({ eventId: z.string(), deliveries: z.array(z.int()).describe('The deliveries queued, by id') });

export type EndpointView = z.infer<typeof endpointSchema>;
export type EndpointWithSecret = z.infer<typeof endpointWithSecretSchema>;
export type CreateEndpointRequest = z.infer<typeof createEndpointRequestSchema>;
export type UpdateEndpointRequest = z.infer<typeof updateEndpointRequestSchema>;
export type DeliveryView = z.infer<typeof deliverySchema>;
export type SentEvent = z.infer<typeof sentEventSchema>;
