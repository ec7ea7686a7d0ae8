import { z } from 'zod';
import { invalidRequest } from '../../errors.js';
import type { StripeCharge, StripeCheckoutSession, StripeInvoice, StripeInvoicePayment } from '../../api/stripe-event.js';
import { type EventPlan, skip } from './event-plan.js';

/*
 * Runtime checks of the parts of a verified event that partnerkit reads. The signature proves who
 * sent the bytes, not that every field has the type Stripe documents; a field of another type
 * makes the event `malformed_event` (2xx, stored), never an exception (5xx, retried for days).
 */

/** Seconds that `new Date(s * 1000)` can represent (±8.64e15 ms). */
const MAX_EPOCH_SECONDS = 8.64e12;

/**
 * What identifies an event and its object: without these it cannot be stored (400). The rest of
 * the event is kept, as planning checks all of its text (plan.ts).
 */
const envelopeSchema = z.looseObject({
  id: z.string().min(1).max(255),
  type: z.string().min(1).max(255),
  created: z.unknown().optional(),
  livemode: z.unknown().optional(),
  data: z.looseObject({ object: z.record(z.string(), z.unknown()) }),
});

export type VerifiedEvent = z.output<typeof envelopeSchema>;

/** The envelope of a signed body, or 400 invalid_request naming the fields that are missing. */
export function parseEnvelope(body: unknown): VerifiedEvent {
  const parsed = envelopeSchema.safeParse(body);
  if (!parsed.success) {
    throw invalidRequest(parsed.error.issues.map((issue) => ({ field: issue.path.join('.') || 'body', message: issue.message })));
  }
  return parsed.data;
}

/** The envelope fields a handled event's sale reads. */
export const handledEnvelopeSchema = z.object({
  created: z.number().min(-MAX_EPOCH_SECONDS).max(MAX_EPOCH_SECONDS).optional(),
  livemode: z.boolean().optional(),
});

const text = z.string().nullish();
const amount = z.number().nullish();
const metadata = z.record(z.string(), z.string()).nullish();
/** An id Stripe sends as the id or, expanded, as the object. */
const expandable = z.union([z.string(), z.object({ id: z.string().optional() })]).nullish();
/** Discounts: ids, or objects whose promotion code is an id or the expanded object. */
const discounts = z
  .array(z.union([z.string(), z.object({ promotion_code: z.union([z.string(), z.object({ id: z.string().optional(), code: text })]).nullish() })]))
  .nullish();

const checkoutSessionSchema = z.object({
  id: z.string().optional(),
  mode: z.string().optional(),
  payment_status: z.string().optional(),
  amount_total: amount,
  currency: text,
  total_details: z.object({ amount_tax: amount }).nullish(),
  metadata,
  customer: expandable,
  customer_details: z.object({ email: text }).nullish(),
  customer_email: text,
  invoice: expandable,
  payment_intent: expandable,
  subscription: expandable,
  discounts,
});

const invoiceSchema = z.object({
  id: z.string().optional(),
  billing_reason: text,
  amount_paid: amount,
  currency: text,
  customer: expandable,
  customer_email: text,
  total_taxes: z.array(z.object({ amount })).nullish(),
  tax: amount,
  parent: z.object({ subscription_details: z.object({ metadata, subscription: expandable }).nullish() }).nullish(),
  subscription: expandable,
  subscription_details: z.object({ metadata }).nullish(),
  payment_intent: expandable,
  charge: expandable,
  discounts,
});

const chargeSchema = z.object({
  id: z.string().optional(),
  amount_refunded: z.int().min(0).nullish(),
  refunded: z.boolean().nullish(),
  payment_intent: expandable,
  invoice: expandable,
  metadata,
});

const invoicePaymentSchema = z.object({
  invoice: expandable,
  payment: z.object({ payment_intent: expandable, charge: expandable }).nullish(),
});

export type ObjectHandler = (object: Record<string, unknown>, programId: number) => EventPlan;

/** A handler that reads its object only once the object has passed the handler's schema. */
function checked<T>(schema: z.ZodType<T>, plan: (object: T, programId: number) => EventPlan): ObjectHandler {
  return (object, programId) => {
    const parsed = schema.safeParse(object);
    return parsed.success ? plan(parsed.data, programId) : skip('malformed_event');
  };
}

export const checkedCheckoutSession = (plan: (session: StripeCheckoutSession, programId: number) => EventPlan) =>
  checked(checkoutSessionSchema, plan);

export const checkedInvoice = (plan: (invoice: StripeInvoice, programId: number) => EventPlan) => checked(invoiceSchema, plan);

export const checkedCharge = (plan: (charge: StripeCharge, programId: number) => EventPlan) => checked(chargeSchema, plan);

export const checkedInvoicePayment = (plan: (payment: StripeInvoicePayment, programId: number) => EventPlan) => checked(invoicePaymentSchema, plan);
