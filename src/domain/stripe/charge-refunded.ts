import { idOf, type StripeCharge } from '../../api/stripe-event.js';
import { type EventPlan, isOtherProgram, skip } from './event-plan.js';

/**
 * charge.refunded: a refund of the charge's sale (docs/refunds-and-payouts.md#stripe-chargerefunded). `amount_refunded` is
 * cumulative, so the refund id is `<charge id>:<amount_refunded>`: a redelivery, or the same total
 * sent again under another event id, is the same refund, and each larger total is a new one.
 */
export function chargeRefunded(charge: StripeCharge, programId: number): EventPlan {
  if (isOtherProgram(charge.metadata, programId)) return skip('program_mismatch');
  if (charge.id === undefined) return skip('malformed_event');
  if (!charge.amount_refunded) return skip('non_positive_amount');
  return {
    refund: {
      refundId: `${charge.id}:${charge.amount_refunded}`,
      refundedCents: charge.amount_refunded,
      fullyRefunded: charge.refunded === true,
      charge: { chargeId: charge.id, paymentIntentId: idOf(charge.payment_intent), invoiceId: idOf(charge.invoice) },
    },
  };
}
