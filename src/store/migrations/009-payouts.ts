import type { Migration } from './index.js';

/**
 * Payouts (docs/refunds-and-payouts.md#commission-approval-and-payouts): a batch is one `payout create`; a payout pays one partner in one
 * currency. A payout keeps the ids of the commissions it took (`commission_ids`, written once),
 * also after a cancel has given them back: commissions.payout_id names only the payout that holds
 * a commission now. A payout's amount is HUGEINT: it is a sum of commissions, which can pass 2^63
 * cents (docs/reports.md#rounding). Every change is one transaction of the one writer, which is what
 * keeps a commission out of two payouts (docs/architecture.md#approval-and-payouts).
 */
export const payouts: Migration = {
  version: 9,
  name: 'payouts',
  sql: `
CREATE TABLE payout_batches (
  id BIGINT PRIMARY KEY,
  program_id BIGINT NOT NULL,
  created_at TIMESTAMP NOT NULL
);

CREATE TABLE payouts (
  id BIGINT PRIMARY KEY,
  batch_id BIGINT NOT NULL,
  program_id BIGINT NOT NULL,
  partner_id BIGINT NOT NULL,
  currency VARCHAR NOT NULL,
  amount_cents HUGEINT NOT NULL,
  commission_ids BIGINT[] NOT NULL,
  status VARCHAR NOT NULL CHECK (status IN ('processing', 'paid', 'canceled')),
  created_at TIMESTAMP NOT NULL,
  paid_at TIMESTAMP
);
`,
};
