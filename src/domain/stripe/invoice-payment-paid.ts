import { idOf, type StripeInvoicePayment } from '../../api/stripe-event.js';
import { type EventPlan, skip } from './event-plan.js';

/**
 * invoice_payment.paid (API 2025-03-31.basil on): from then on a charge no longer names its invoice,
 * nor an invoice its payment intent, so this link is how a refund of a charge finds an invoice's
 * sale (docs/refunds-and-payouts.md#stripe-chargerefunded).
 */
export function invoicePaymentPaid(invoicePayment: StripeInvoicePayment): EventPlan {
  const invoiceId = idOf(invoicePayment.invoice);
  const paymentIntentId = idOf(invoicePayment.payment?.payment_intent);
  const chargeId = idOf(invoicePayment.payment?.charge);
  if (invoiceId === undefined || (paymentIntentId === undefined && chargeId === undefined)) return skip('no_payment_reference');
  return { link: { invoiceId, paymentIntentId, chargeId } };
}
