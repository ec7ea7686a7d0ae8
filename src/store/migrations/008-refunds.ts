import type { Migration } from './index.js';

/**
 * Refunds and their effect on commissions (docs/refunds-and-payouts.md#refunds-and-the-commission-lifecycle).
 *
 * - `refunds`, append-only: one row per refund, unique by `refund_key` = '<program>:<mode>:<refund id>'
 *   (one column, like sale_transactions.txn_key), which makes a refund id count once. A live refund
 *   carries its sale's report day and instant (`paid_day`, `paid_at`) and whether it completed the
 *   sale's refund, so the report nets revenue and sales on the sale's own day without updating
 *   sale_events; `day` is the day it was received. Test refunds have no days, so reports never see them.
 * - `invoice_payments`: Stripe's link between an invoice and the payment intent or charge that
 *   paid it (`invoice_payment.paid`, API 2025-03-31.basil on), which a charge no longer names.
 * - Sales remember the Stripe payment intent and charge their event carried; test sales also the
 *   provider payment id, so refunds find both kinds of sale by the same ids.
 * - A commission remembers the percentage it was computed with (`percent_bp`, NULL for a flat rule
 *   or a clawback), so a partial refund recomputes it by the rule of its sale even after the rules
 *   changed. Commissions stored before get the rule their sale would get now, the best that is known.
 * - A webhook event names the payment intent, invoice and charge of a refund it could not place
 *   yet, so the sale or link that arrives later finds it (deferred like unattributed events).
 */
export const refunds: Migration = {
  version: 8,
  name: 'refunds',
  sql: `
CREATE TABLE refunds (
  id BIGINT NOT NULL,
  refund_key VARCHAR PRIMARY KEY,
  program_id BIGINT NOT NULL,
  mode VARCHAR NOT NULL CHECK (mode IN ('live', 'test')),
  refund_id VARCHAR NOT NULL,
  sale_id BIGINT NOT NULL,
  partner_program_id BIGINT,                  -- the sale's enrollment (live refunds): the per-partner report nets it
  amount_cents BIGINT NOT NULL,
  currency VARCHAR NOT NULL,
  reason VARCHAR,
  source VARCHAR NOT NULL,
  completes_sale BOOLEAN NOT NULL,
  paid_at TIMESTAMP,
  paid_day DATE,
  received_at TIMESTAMP NOT NULL,
  day DATE
);

CREATE TABLE invoice_payments (
  program_id BIGINT NOT NULL,
  invoice_id VARCHAR NOT NULL,
  payment_intent_id VARCHAR,
  charge_id VARCHAR,
  created_at TIMESTAMP NOT NULL
);

ALTER TABLE sale_events ADD COLUMN payment_intent_id VARCHAR;
ALTER TABLE sale_events ADD COLUMN charge_id VARCHAR;
ALTER TABLE test_sale_events ADD COLUMN provider_payment_id VARCHAR;
ALTER TABLE test_sale_events ADD COLUMN payment_intent_id VARCHAR;
ALTER TABLE test_sale_events ADD COLUMN charge_id VARCHAR;

ALTER TABLE commissions ADD COLUMN percent_bp BIGINT;
UPDATE commissions SET percent_bp = r.value
FROM (
  SELECT s.id AS sale_id, coalesce(pr.commission_type, p.commission_type) AS type, coalesce(pr.commission_value, p.commission_value) AS value
  FROM sale_events s
  JOIN programs p ON p.id = s.program_id
  LEFT JOIN product_rules pr ON pr.program_id = s.program_id AND pr.product_id = s.product_id
) r
WHERE commissions.sale_id = r.sale_id AND commissions.type = 'sale' AND r.type = 'percent';

ALTER TABLE webhook_events ADD COLUMN payment_intent_id VARCHAR;
ALTER TABLE webhook_events ADD COLUMN invoice_id VARCHAR;
ALTER TABLE webhook_events ADD COLUMN charge_id VARCHAR;
`,
};
