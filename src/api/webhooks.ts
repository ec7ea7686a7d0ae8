import { z } from 'zod';
import { instant } from './common.js';

const outcome = z.enum(['recorded', 'skipped', 'ignored']);

/** Why an event recorded no sale or refund, or a note on a recorded one (docs/webhooks.md#outcomes-and-reasons, docs/refunds-and-payouts.md#invoice_paymentpaid-and-refunds-that-wait). */
export const OUTCOME_REASONS = [
  'unhandled_event_type', 'payment_not_completed', 'not_subscription_cycle', 'non_positive_amount', 'program_mismatch', 'no_attribution',
  'attribution_window_expired', 'unsupported_currency', 'invalid_sale', 'malformed_event', 'already_recorded', 'test_mode',
  'sale_not_found', 'refund_exceeds_sale', 'no_payment_reference', 'refund_recorded', 'already_refunded', 'payment_linked',
] as const;
export type OutcomeReason = (typeof OUTCOME_REASONS)[number];

/**
 * The route receives the event as raw bytes, since the signature covers them byte for byte, and
 * checks it only after the signature; this schema accepts anything and only documents the body.
 */
export const stripeEventRequestSchema = z.unknown().meta({
  description: 'A Stripe event, exactly as Stripe signed it (Stripe-Signature header)',
  type: 'object',
  required: ['id', 'type', 'data'],
});

/** The answer to Stripe, and what a redelivery answers again. */
export const webhookResultSchema = z.object({
  received: z.literal(true),
  event_id: z.string(),
  type: z.string(),
  outcome,
  reason: z.enum(OUTCOME_REASONS).nullable(),
  sale_id: z.number().int().nullable().describe('The sale recorded, or refunded by a charge.refunded event'),
  redelivery: z.boolean().describe('true when this event id was already processed: nothing changed'),
});

export const webhookEventsQuerySchema = z.object({ limit: z.coerce.number<number>().int().min(1).max(1000).default(50) });

export const webhookEventSchema = z.object({
  eventId: z.string(),
  type: z.string(),
  outcome,
  reason: z.string().nullable(),
  saleId: z.int().nullable(),
  receivedAt: instant,
});

export const webhookSecretRequestSchema = z.object({
  secret: z.string().regex(/^whsec_[A-Za-z0-9_-]{8,250}$/, 'a Stripe signing secret, whsec_…'),
});

export const webhookSecretSchema = z.object({ programId: z.int(), webhookSecret: z.string() });

export type WebhookResult = z.output<typeof webhookResultSchema>;
export type WebhookEventsQuery = z.input<typeof webhookEventsQuerySchema>;
export type WebhookEvent = z.output<typeof webhookEventSchema>;
export type WebhookSecretRequest = z.input<typeof webhookSecretRequestSchema>;
export type WebhookSecret = z.output<typeof webhookSecretSchema>;
