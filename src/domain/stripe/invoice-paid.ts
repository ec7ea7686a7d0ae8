import {
  idOf, invoiceSubscriptionId, invoiceSubscriptionMetadata, invoiceTaxCents, METADATA, metadataValue, renewalSkipReason,
  type StripeInvoice,
} from '../../api/stripe-event.js';
import { currencyOf, type EventPlan, isOtherProgram, promotionOf, skip } from './event-plan.js';

/**
 * invoice.payment_succeeded and invoice.paid: renewals only (billing_reason subscription_cycle);
 * the first invoice is the checkout's sale. Metadata comes from the subscription (docs/webhooks.md#invoices-renewals).
 */
export function invoicePaid(invoice: StripeInvoice, programId: number): EventPlan {
  const skipReason = renewalSkipReason(invoice);
  if (skipReason) return skip(skipReason);
  const metadata = invoiceSubscriptionMetadata(invoice);
  if (isOtherProgram(metadata, programId)) return skip('program_mismatch');
  if (invoice.id === undefined) return skip('invalid_sale');
  const subscriptionId = invoiceSubscriptionId(invoice);
  return {
    sale: {
      transaction_id: invoice.id,
      amount_cents: invoice.amount_paid!,
      tax_cents: invoiceTaxCents(invoice),
      currency: currencyOf(invoice.currency),
      sale_type: 'subscription',
      is_recurring: true,
      subscription_id: subscriptionId,
      provider: 'stripe',
      provider_payment_id: invoice.id,
    },
    hints: {
      clickId: metadataValue(metadata, METADATA.clickId),
      email: invoice.customer_email ?? undefined,
      providerCustomerId: idOf(invoice.customer),
      customerKey: metadataValue(metadata, METADATA.customerKey),
      subscriptionId,
      promotion: promotionOf(invoice.discounts),
    },
    // Invoices name their payment only in API versions before basil; later, invoice_payment.paid links them.
    payment: { paymentIntentId: idOf(invoice.payment_intent), chargeId: idOf(invoice.charge) },
  };
}
