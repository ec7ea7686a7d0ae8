import type { ClickRequest, ClickResult, CommissionStatus, LeadRequest, LeadResult, RefundRequest, SaleRequest } from '../api/index.js';
import { PartnerkitError } from './errors.js';

// The SDK's tracking calls take and answer camelCase; the endpoints' own names are snake_case
// (docs/sdk.md#names-on-each-surface-and-the-tracking-calls). These functions are the one place the two meet.

/** The SDK's trackClick input. */
export type TrackClickInput = {
  /** The partner's referral code. */
  ref: string;
  landingUrl?: string;
  referrer?: string;
  /** A test click, never counted in reports. */
  test?: boolean;
  /** Server-side clicks only (the client has an API key): the visitor's IP address. */
  ip?: string;
  /** Server-side clicks only: the visitor's User-Agent. */
  userAgent?: string;
};

export type TrackClickResult = {
  /** The value to store in the partner_click_id cookie. */
  clickId: string;
};

/** The SDK's trackLead input. */
export type TrackLeadInput = {
  /** Your stable id for this customer (customer_key); the same id trackSale takes. */
  customerExternalId: string;
  /** The partner_click_id cookie value; give it or couponCode. */
  clickId?: string;
  /** A partner's promotion code the customer entered, when there is no click (coupon_code). */
  couponCode?: string;
  email?: string;
  name?: string;
};

export type TrackLeadResult = {
  /** The customer's id; null for a test key, which records nothing. */
  customerId: number | null;
  message: string;
};

/** The SDK's trackSale input. */
export type TrackSaleInput = {
  /** Your customer id given at signup (customer_key). */
  customerExternalId?: string;
  /** Fallback attribution: the partner_click_id cookie value. */
  clickId?: string;
  /** Last attribution step: a partner's promotion code the customer used (coupon_code). */
  couponCode?: string;
  /** Integer minor units (cents), > 0. */
  amount: number;
  /** Your payment or invoice id: the idempotency key (transaction_id). */
  invoiceId: string;
  /** usd, eur or vnd, any case; default usd. */
  currency?: string;
  isRecurring?: boolean;
  saleType?: 'payment' | 'subscription';
  subscriptionId?: string;
  productId?: string;
  /** When the payment happened (ISO 8601 with offset, or a Date). */
  occurredAt?: string | Date;
};

export type TrackSaleResult =
  | { status: 'recorded'; saleId: number | null; commissionId: number | null; message: string }
  /** A 409: the earlier call succeeded. Treat as success; never retry. */
  | { status: 'already_recorded'; saleId: number | null; message: string };

/** The body without the fields left undefined: they are not sent. */
function defined<T extends object>(body: T): T {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined)) as T;
}

export function toClickRequest(input: TrackClickInput): ClickRequest {
  const { ref, landingUrl, referrer, test, ip, userAgent } = input;
  return defined({ ref, landing_url: landingUrl, referrer, test, ip, user_agent: userAgent });
}

export function fromClickResult(result: ClickResult): TrackClickResult {
  return { clickId: result.click_id };
}

export function toLeadRequest(input: TrackLeadInput): LeadRequest {
  return defined({ customer_key: input.customerExternalId, click_id: input.clickId, coupon_code: input.couponCode, email: input.email, name: input.name });
}

export function fromLeadResult(result: LeadResult): TrackLeadResult {
  return { customerId: result.customer_id, message: result.message };
}

/** The SDK's trackRefund input (docs/refunds-and-payouts.md#refunds-from-the-sdk-and-the-cli). */
export type TrackRefundInput = {
  /** The refunded sale's transaction id: the invoiceId it was tracked with. */
  invoiceId: string;
  /** Your refund's id: the idempotency key (refund_id). */
  refundId: string;
  /** Integer minor units (cents) refunded, > 0, like trackSale's amount; default everything not refunded yet. */
  amount?: number;
  reason?: string;
};

export type TrackRefundResult =
  | {
      status: 'recorded';
      refundId: number;
      saleId: number;
      refundedCents: number;
      remainingCents: number;
      commissionId: number | null;
      commissionStatus: CommissionStatus | null;
      clawbackCommissionId: number | null;
    }
  /** A 409: the refund id was recorded earlier. Treat as success; never retry. */
  | { status: 'already_recorded'; refundId: number; message: string };

/** An amount of the SDK: an integer number of cents above 0, else the call fails before any request. */
function checkCents(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new PartnerkitError(0, 'invalid_request', 'amount must be a positive integer number of cents', {
      fields: [{ field: 'amount', message: 'must be a positive integer (cents)' }],
    });
  }
}

/** A required id of the SDK (`why` says what it is for), else the call fails before any request. */
function checkRequired(field: string, value: string | undefined, why: string): void {
  if (!value) throw new PartnerkitError(0, 'invalid_request', `${field} is required (${why})`, { fields: [{ field, message: 'Required' }] });
}

/** Maps the SDK's names to the endpoint's body; rejects a bad amount before any request. */
export function toSaleRequest(input: TrackSaleInput): SaleRequest {
  checkCents(input.amount);
  checkRequired('invoiceId', input.invoiceId, 'it is the idempotency key');
  return defined({
    transaction_id: input.invoiceId,
    amount_cents: input.amount,
    currency: (input.currency ?? 'usd').toUpperCase(),
    customer_key: input.customerExternalId,
    click_id: input.clickId,
    coupon_code: input.couponCode,
    is_recurring: input.isRecurring,
    sale_type: input.saleType,
    subscription_id: input.subscriptionId,
    product_id: input.productId,
    occurred_at: input.occurredAt instanceof Date ? input.occurredAt.toISOString() : input.occurredAt,
  });
}

/** Maps the SDK's names to the endpoint's body; rejects a bad amount or a missing id before any request. */
export function toRefundRequest(input: TrackRefundInput): RefundRequest {
  if (input.amount !== undefined) checkCents(input.amount);
  checkRequired('invoiceId', input.invoiceId, 'it names the refunded sale');
  checkRequired('refundId', input.refundId, 'it is the idempotency key');
  return defined({ transaction_id: input.invoiceId, refund_id: input.refundId, amount_cents: input.amount, reason: input.reason });
}

/**
 * The sale id a `duplicate_transaction` error names (null when the first request's attribution
 * window had expired), or undefined for any other error: a 409 means the earlier call succeeded.
 */
export function alreadyRecordedSaleId(error: unknown): number | null | undefined {
  if (!(error instanceof PartnerkitError) || error.code !== 'duplicate_transaction') return undefined;
  return (error.details as { sale_id?: number | null } | null)?.sale_id ?? null;
}

/** The refund id a `duplicate_refund` error names, or undefined for any other error: a 409 means the earlier call succeeded. */
export function alreadyRecordedRefundId(error: unknown): number | undefined {
  if (!(error instanceof PartnerkitError) || error.code !== 'duplicate_refund') return undefined;
  return (error.details as { refund_id: number }).refund_id;
}
