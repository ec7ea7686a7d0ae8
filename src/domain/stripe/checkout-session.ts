import { idOf, METADATA, metadataValue, type StripeCheckoutSession } from '../../api/stripe-event.js';
import { currencyOf, type EventPlan, isOtherProgram, promotionOf, skip } from './event-plan.js';

/**
 * checkout.session.completed, and checkout.session.async_payment_succeeded for a delayed method
 * (SEPA, ACH) that completed later: a paid session is the first payment (docs/webhooks.md#checkout-sessions-first-payments).
 * Its transaction id is the session's invoice when it has one, so the subscription's first
 * invoice is never counted a second time; else the payment intent, else the session itself.
 */
export function checkoutSessionPaid(session: StripeCheckoutSession, programId: number): EventPlan {
  if (session.payment_status !== 'paid') return skip('payment_not_completed');
  if (isOtherProgram(session.metadata, programId)) return skip('program_mismatch');
  if (typeof session.amount_total !== 'number' || session.amount_total <= 0) return skip('non_positive_amount');
  const paymentIntent = idOf(session.payment_intent);
  const subscriptionId = idOf(session.subscription);
  const transactionId = idOf(session.invoice) ?? paymentIntent ?? session.id;
  if (transactionId === undefined) return skip('invalid_sale');
  const tax = session.total_details?.amount_tax;
  return {
    sale: {
      transaction_id: transactionId,
      amount_cents: session.amount_total,
      tax_cents: typeof tax === 'number' ? tax : undefined,
      currency: currencyOf(session.currency),
      sale_type: session.mode === 'subscription' ? 'subscription' : 'payment',
      is_recurring: false,
      subscription_id: subscriptionId,
      provider: 'stripe',
      provider_payment_id: paymentIntent ?? session.id,
    },
    hints: {
      clickId: metadataValue(session.metadata, METADATA.clickId),
      email: session.customer_details?.email ?? session.customer_email ?? undefined,
      providerCustomerId: idOf(session.customer),
      customerKey: metadataValue(session.metadata, METADATA.customerKey),
      promotion: promotionOf(session.discounts),
    },
    payment: { paymentIntentId: paymentIntent },
  };
}
