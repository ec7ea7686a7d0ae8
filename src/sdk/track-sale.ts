import type { SaleRequest } from '../api/index.js';
import { PartnerkitError } from './errors.js';

/** The SDK's trackSale input (docs/behaviour.md §9.1). */
export type TrackSaleInput = {
  /** Your customer id given at signup (customer_key). */
  customerExternalId?: string;
  /** Fallback attribution: the partner_click_id cookie value. */
  clickId?: string;
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

/** An amount of the SDK: an integer number of cents above 0, else the call fails before any request. */
export function checkCents(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new PartnerkitError(0, 'invalid_request', 'amount must be a positive integer number of cents', {
      fields: [{ field: 'amount', message: 'must be a positive integer (cents)' }],
    });
  }
}

/** A required id of the SDK (`why` says what it is for), else the call fails before any request. */
export function checkRequired(field: string, value: string | undefined, why: string): void {
  if (!value) throw new PartnerkitError(0, 'invalid_request', `${field} is required (${why})`, { fields: [{ field, message: 'Required' }] });
}

/** The fields given, without those left undefined. */
export function definedFields<T extends object>(request: T): T {
  return Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined)) as T;
}

/** Maps the SDK's names to the endpoint's body; rejects a bad amount before any request. */
export function toSaleRequest(input: TrackSaleInput): SaleRequest {
  checkCents(input.amount);
  checkRequired('invoiceId', input.invoiceId, 'it is the idempotency key');
  return definedFields<SaleRequest>({
    transaction_id: input.invoiceId,
    amount_cents: input.amount,
    currency: (input.currency ?? 'usd').toUpperCase(),
    customer_key: input.customerExternalId,
    click_id: input.clickId,
    is_recurring: input.isRecurring,
    sale_type: input.saleType,
    subscription_id: input.subscriptionId,
    product_id: input.productId,
    occurred_at: input.occurredAt instanceof Date ? input.occurredAt.toISOString() : input.occurredAt,
  });
}
