import { malformedStrings } from '../unicode.js';
import { chargeRefunded } from './charge-refunded.js';
import { checkoutSessionPaid } from './checkout-session.js';
import type { EventPlan } from './event-plan.js';
import { skip } from './event-plan.js';
import { invoicePaid } from './invoice-paid.js';
import { invoicePaymentPaid } from './invoice-payment-paid.js';
import {
  checkedCharge, checkedCheckoutSession, checkedInvoice, checkedInvoicePayment, handledEnvelopeSchema, type ObjectHandler, type VerifiedEvent,
} from './schema.js';

/** One function per event type, each reading its object only after its schema; every other type is ignored. */
const handlers = new Map<string, ObjectHandler>([
  ['checkout.session.completed', checkedCheckoutSession(checkoutSessionPaid)],
  ['checkout.session.async_payment_succeeded', checkedCheckoutSession(checkoutSessionPaid)],
  ['invoice.payment_succeeded', checkedInvoice(invoicePaid)],
  ['invoice.paid', checkedInvoice(invoicePaid)],
  ['charge.refunded', checkedCharge(chargeRefunded)],
  ['invoice_payment.paid', checkedInvoicePayment(invoicePaymentPaid)],
]);

/** The event types partnerkit acts on: the ones a reconciliation asks Stripe for (docs/stripe-reconciliation.md). */
export const HANDLED_EVENT_TYPES: readonly string[] = [...handlers.keys()];

/** What a verified event asks for, with the envelope fields its sale reads. */
export type PlannedEvent = { plan: EventPlan; created?: number; live: boolean };

/**
 * Stage 2: pure, no lookups. An event carrying text that is not valid Unicode, or a handled event
 * whose read fields have unexpected types, is malformed_event (docs/webhooks.md#planning-an-event).
 */
export function planEvent(event: VerifiedEvent, programId: number): PlannedEvent {
  if (malformedStrings(event).length > 0) return { plan: skip('malformed_event'), live: true };
  const handler = handlers.get(event.type);
  if (!handler) return { plan: { outcome: 'ignored', reason: 'unhandled_event_type' }, live: true };
  const envelope = handledEnvelopeSchema.safeParse(event);
  if (!envelope.success) return { plan: skip('malformed_event'), live: true };
  return { plan: handler(event.data.object, programId), created: envelope.data.created, live: envelope.data.livemode !== false };
}
