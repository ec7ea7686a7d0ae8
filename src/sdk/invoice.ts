import {
  invoiceSubscriptionId, invoiceSubscriptionMetadata, METADATA, metadataValue, renewalSkipReason, type RenewalSkipReason,
  type StripeInvoice,
} from '../api/stripe-event.js';
import type { TrackSaleInput } from './tracking.js';

export type { StripeInvoice } from '../api/stripe-event.js';

export type InvoiceSkipReason = RenewalSkipReason | 'no_customer_key';

/** What to do with a paid Stripe invoice: send this trackSale input, or skip it and why. */
export type InvoiceSale = { action: 'track'; input: TrackSaleInput } | { action: 'skip'; reason: InvoiceSkipReason };

/**
 * For merchants that handle Stripe's `invoice.paid` themselves and call the sale endpoint (docs/sdk.md#tracksalefrominvoice-merchants-handling-stripe-themselves
 * "self-hosted alternative"): renewals only (billing_reason subscription_cycle), amount_paid > 0,
 * the customer key from the subscription metadata (parent.subscription_details first, the legacy
 * subscription_details second). The invoice id is the transaction id, so a retry is a 409, never
 * a second sale. Never use this together with partnerkit's connected Stripe webhook.
 */
export function trackSaleFromInvoice(invoice: StripeInvoice & { id: string }): InvoiceSale {
  const skip = renewalSkipReason(invoice);
  if (skip) return { action: 'skip', reason: skip };
  const metadata = invoiceSubscriptionMetadata(invoice);
  const customerKey = metadataValue(metadata, METADATA.customerKey);
  if (customerKey === undefined) return { action: 'skip', reason: 'no_customer_key' };
  const input: TrackSaleInput = {
    customerExternalId: customerKey,
    clickId: metadataValue(metadata, METADATA.clickId),
    amount: invoice.amount_paid!,
    invoiceId: invoice.id,
    currency: invoice.currency ?? undefined,
    isRecurring: true,
    saleType: 'subscription',
    subscriptionId: invoiceSubscriptionId(invoice),
  };
  return { action: 'track', input: Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as TrackSaleInput };
}
