import type { CommissionStatus, RefundRequest } from '../api/index.js';
import { checkCents, checkRequired, definedFields } from './track-sale.js';

/** The SDK's trackRefund input (docs/behaviour.md §12.10). */
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

/** Maps the SDK's names to the endpoint's body; rejects a bad amount or a missing id before any request. */
export function toRefundRequest(input: TrackRefundInput): RefundRequest {
  if (input.amount !== undefined) checkCents(input.amount);
  checkRequired('invoiceId', input.invoiceId, 'it names the refunded sale');
  checkRequired('refundId', input.refundId, 'it is the idempotency key');
  return definedFields<RefundRequest>({ transaction_id: input.invoiceId, refund_id: input.refundId, amount_cents: input.amount, reason: input.reason });
}
