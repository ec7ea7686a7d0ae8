import type { CommissionRow, SaleEventRow, TestSaleRow } from '../../store/sales.js';
import type { CustomerRow } from '../../store/tracking.js';
import type { RefundRow } from '../../store/refunds.js';
import type { OutboundEvent } from './events.js';

/*
 * The `data` of the events whose object the admin API does not list (sales, refunds, leads), in its
 * style: camelCase, instants in ISO 8601 (docs/outbound-webhooks.md#event-types). Commissions,
 * payouts and enrollments are sent as the admin API answers them.
 */

const iso = (at: Date | null) => at?.toISOString() ?? null;

/** sale.created of a live sale, and commission.created of its commission (status pending, as recorded). */
export function liveSaleEvents(sale: SaleEventRow, partnerId: number | null, commission: CommissionRow | undefined): OutboundEvent[] {
  const data = {
    id: sale.id, programId: sale.program_id, partnerId, enrollmentId: sale.partner_program_id, customerId: sale.customer_id,
    transactionId: sale.transaction_id, amountCents: sale.amount_cents, taxCents: sale.tax_cents, currency: sale.currency, saleType: sale.sale_type,
    isRecurring: sale.is_recurring, subscriptionId: sale.subscription_id, productId: sale.product_id, source: sale.source, status: sale.status,
    occurredAt: iso(sale.occurred_at), receivedAt: sale.received_at.toISOString(), commissionId: commission?.id ?? null,
  };
  const events: OutboundEvent[] = [{ programId: sale.program_id, type: 'sale.created', livemode: true, data }];
  if (commission && partnerId !== null) events.push(commissionCreatedEvent(commission, partnerId));
  return events;
}

/** commission.created of a commission just recorded (a sale's or a lead reward), as the admin API lists it. */
export function commissionCreatedEvent(commission: CommissionRow, partnerId: number): OutboundEvent {
  return {
    programId: commission.program_id, type: 'commission.created', livemode: true,
    data: {
      id: commission.id, programId: commission.program_id, partnerId, saleId: commission.sale_id, type: commission.type, amountCents: commission.amount_cents,
      currency: commission.currency, status: commission.status, holdUntil: commission.hold_until.toISOString(), createdAt: commission.created_at.toISOString(),
      payoutId: null, paidAt: null, reason: null,
    },
  };
}

/** sale.created of a test-mode sale: `livemode: false`, the fields it was sent with. */
export function testSaleEvent(sale: TestSaleRow): OutboundEvent {
  return {
    programId: sale.program_id, type: 'sale.created', livemode: false,
    data: {
      id: sale.id, programId: sale.program_id, transactionId: sale.transaction_id, amountCents: sale.amount_cents, currency: sale.currency,
      customerKey: sale.customer_key, clickId: sale.click_id, receivedAt: sale.received_at.toISOString(),
    },
  };
}

/** refund.created; a test sale's refund is sent with `livemode: false`. */
export function refundEvent(refund: RefundRow): OutboundEvent {
  return {
    programId: refund.program_id, type: 'refund.created', livemode: refund.mode === 'live',
    data: {
      id: refund.id, programId: refund.program_id, saleId: refund.sale_id, refundId: refund.refund_id, amountCents: refund.amount_cents,
      currency: refund.currency, reason: refund.reason, source: refund.source, completesSale: refund.completes_sale, receivedAt: refund.received_at.toISOString(),
    },
  };
}

/** lead.created: the customer a lead bound to the partner of a click. */
export function leadEvent(customer: CustomerRow): OutboundEvent {
  return {
    programId: customer.program_id, type: 'lead.created', livemode: true,
    data: {
      id: customer.id, programId: customer.program_id, enrollmentId: customer.partner_program_id, customerKey: customer.customer_key,
      email: customer.email, name: customer.name, status: customer.status, signupAt: customer.signup_date.toISOString(),
    },
  };
}
