import type { OutcomeReason, SaleRequest } from '../../api/index.js';
import { METADATA, metadataValue, type StripeDiscounts, type StripeMetadata } from '../../api/stripe-event.js';
import type { CodeRef } from '../promotion-codes.js';
import type { ChargeIds } from '../track-refund.js';
import type { StripePayment } from '../track-sale.js';

/**
 * Why an event recorded no sale (stored with the event and answered in the body); malformed_event
 * is a signed event whose fields partnerkit reads have unexpected types (schema.ts).
 */
export type SkipReason = Exclude<OutcomeReason, 'already_recorded' | 'test_mode' | 'refund_recorded' | 'already_refunded' | 'payment_linked'>;

/** What identifies the customer, tried in the order of docs/webhooks.md#attribution-fallback-order (see attribute.ts). */
export type AttributionHints = {
  clickId?: string;
  email?: string;
  providerCustomerId?: string;
  customerKey?: string;
  /** Renewals: the subscription whose earlier sale names the customer. */
  subscriptionId?: string;
  /** The promotion code of the discounts, tried after every other step (docs/promotion-codes.md#stripe-discounts). */
  promotion?: CodeRef;
};

/** The first promotion code among the discounts: an id (`promo_…`), or an expanded object's code. */
export function promotionOf(discounts: StripeDiscounts | undefined): CodeRef | undefined {
  for (const discount of discounts ?? []) {
    const promotion = typeof discount === 'string' ? undefined : discount.promotion_code;
    if (typeof promotion === 'string' && promotion !== '') return { stripeId: promotion };
    if (promotion && typeof promotion === 'object') {
      if (promotion.code) return { code: promotion.code };
      if (promotion.id) return { stripeId: promotion.id };
    }
  }
  return undefined;
}

export type SaleFields = Omit<SaleRequest, 'customer_key' | 'click_id'> & { transaction_id: string; amount_cents: number };

/** A charge's refund: its refund id (`<charge id>:<amount_refunded>`), the charge's cumulative refund and ids (docs/refunds-and-payouts.md#stripe-chargerefunded). */
export type RefundPlan = { refundId: string; refundedCents: number; fullyRefunded: boolean; charge: ChargeIds };

/** An invoice and the payment intent or charge that paid it (invoice_payment.paid). */
export type PaymentLink = { invoiceId: string; paymentIntentId?: string; chargeId?: string };

/**
 * What an event handler decides before any lookup: no sale, a sale to attribute and record (with
 * the Stripe payment ids its refunds will name), a refund to record, or an invoice's payment to remember.
 */
export type EventPlan =
  | { outcome: 'ignored' | 'skipped'; reason: SkipReason }
  | { sale: SaleFields; hints: AttributionHints; payment: StripePayment }
  | { refund: RefundPlan }
  | { link: PaymentLink };

export function skip(reason: SkipReason): EventPlan {
  return { outcome: 'skipped', reason };
}

/** metadata program_id naming another program skips the event (docs/webhooks.md#metadata). */
export function isOtherProgram(metadata: StripeMetadata | null | undefined, programId: number): boolean {
  const named = metadataValue(metadata, METADATA.programId);
  return named !== undefined && named !== String(programId);
}

/** Stripe sends lower-case ISO codes; the sale endpoint's are upper-case. */
export function currencyOf(currency: string | null | undefined): string | undefined {
  return currency ? currency.toUpperCase() : undefined;
}
