/*
 * The parts of Stripe's event payloads partnerkit reads. Stripe sends many more fields, and their
 * shapes move between API versions, so everything is optional and read defensively; no runtime
 * import of the `stripe` package here (the SDK's invoice helper shares this module). The connected
 * webhook checks these types at runtime first (src/domain/stripe/schema.ts). It sits with the API contract
 * because Stripe's event is what the webhook endpoint takes in, and the SDK must not import domain code.
 */

export type StripeMetadata = Record<string, string | undefined>;

/** An id field Stripe sends either as the id or, when expanded, as the object. */
export type Expandable = string | { id?: string } | null | undefined;

/**
 * The discounts of a checkout session or an invoice: an invoice lists discount ids (`di_…`) unless
 * expanded; a discount's promotion code is its id (`promo_…`) or, expanded, the object with its `code`.
 */
export type StripeDiscounts = Array<string | { promotion_code?: string | { id?: string; code?: string | null } | null }> | null;

export type StripeCheckoutSession = {
  id?: string;
  object?: string;
  mode?: 'payment' | 'setup' | 'subscription' | string;
  payment_status?: 'paid' | 'unpaid' | 'no_payment_required' | string;
  amount_total?: number | null;
  currency?: string | null;
  total_details?: { amount_tax?: number | null } | null;
  metadata?: StripeMetadata | null;
  customer?: Expandable;
  customer_details?: { email?: string | null } | null;
  customer_email?: string | null;
  invoice?: Expandable;
  payment_intent?: Expandable;
  subscription?: Expandable;
  discounts?: StripeDiscounts;
  livemode?: boolean;
};

export type StripeInvoice = {
  id?: string;
  object?: string;
  billing_reason?: string | null;
  amount_paid?: number | null;
  currency?: string | null;
  customer?: Expandable;
  customer_email?: string | null;
  /** API versions from 2025-03-31 (basil): the taxes of the invoice. */
  total_taxes?: Array<{ amount?: number | null }> | null;
  /** Older API versions. */
  tax?: number | null;
  parent?: { subscription_details?: { metadata?: StripeMetadata | null; subscription?: Expandable } | null } | null;
  /** Legacy location (before basil) of the subscription and its metadata snapshot. */
  subscription?: Expandable;
  subscription_details?: { metadata?: StripeMetadata | null } | null;
  /** Older API versions (before basil): the payment intent and charge that paid the invoice. */
  payment_intent?: Expandable;
  charge?: Expandable;
  discounts?: StripeDiscounts;
  livemode?: boolean;
};

/** A charge, as `charge.refunded` carries it. */
export type StripeCharge = {
  id?: string;
  object?: string;
  amount?: number | null;
  /** Cumulative: everything refunded of the charge so far. */
  amount_refunded?: number | null;
  /** The charge is fully refunded. */
  refunded?: boolean | null;
  currency?: string | null;
  payment_intent?: Expandable;
  /** Older API versions (before basil): the invoice the charge paid. */
  invoice?: Expandable;
  metadata?: StripeMetadata | null;
  livemode?: boolean;
};

/** An invoice payment (API 2025-03-31.basil on): which payment intent or charge paid an invoice. */
export type StripeInvoicePayment = {
  id?: string;
  object?: string;
  invoice?: Expandable;
  payment?: { type?: string; payment_intent?: Expandable; charge?: Expandable } | null;
  livemode?: boolean;
};

/** The metadata keys the merchant attaches to checkout sessions and subscriptions (docs/webhooks.md#metadata). */
export const METADATA = {
  clickId: 'partner_click_id',
  customerKey: 'partner_customer_key',
  programId: 'program_id',
} as const;

export function idOf(value: Expandable): string | undefined {
  const id = typeof value === 'string' ? value : value?.id;
  return id ? id : undefined;
}

/** A metadata value, or undefined when absent or blank. */
export function metadataValue(metadata: StripeMetadata | null | undefined, key: string): string | undefined {
  const value = metadata?.[key];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function hasKeys(metadata: StripeMetadata | null | undefined): metadata is StripeMetadata {
  return metadata !== null && metadata !== undefined && Object.keys(metadata).length > 0;
}

/** Subscription metadata of an invoice: the newer parent.subscription_details first, else the legacy place. */
export function invoiceSubscriptionMetadata(invoice: StripeInvoice): StripeMetadata {
  const newer = invoice.parent?.subscription_details?.metadata;
  if (hasKeys(newer)) return newer;
  const legacy = invoice.subscription_details?.metadata;
  return hasKeys(legacy) ? legacy : {};
}

export function invoiceSubscriptionId(invoice: StripeInvoice): string | undefined {
  return idOf(invoice.parent?.subscription_details?.subscription) ?? idOf(invoice.subscription);
}

/** The invoice's tax: the sum of total_taxes, else the legacy tax field. */
export function invoiceTaxCents(invoice: StripeInvoice): number | undefined {
  if (Array.isArray(invoice.total_taxes)) return invoice.total_taxes.reduce((sum, tax) => sum + (tax.amount ?? 0), 0);
  return typeof invoice.tax === 'number' ? invoice.tax : undefined;
}

export type RenewalSkipReason = 'not_subscription_cycle' | 'non_positive_amount';

/**
 * The renewal rules (docs/webhooks.md#invoices-renewals), shared by the connected webhook and the SDK helper:
 * only billing_reason subscription_cycle, only amount_paid > 0.
 */
export function renewalSkipReason(invoice: StripeInvoice): RenewalSkipReason | undefined {
  if (invoice.billing_reason !== 'subscription_cycle') return 'not_subscription_cycle';
  if (typeof invoice.amount_paid !== 'number' || invoice.amount_paid <= 0) return 'non_positive_amount';
  return undefined;
}
