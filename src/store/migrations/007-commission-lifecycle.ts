import type { Migration } from './index.js';

/**
 * The commission lifecycle and payouts (docs/refunds-and-payouts.md#refunds-and-the-commission-lifecycle): a commission has a type (`sale`,
 * or `clawback` for the negative correction of one already in a payout), the payout that took it,
 * when it was paid and why it was rejected. A program chooses how commissions are approved and
 * the least balance worth paying; a partner says how and where to be paid. Existing rows get the
 * defaults: ordinary commissions, automatic approval, no minimum, no payout details.
 */
export const commissionLifecycle: Migration = {
  version: 7,
  name: 'commission-lifecycle',
  sql: `
ALTER TABLE commissions ADD COLUMN type VARCHAR DEFAULT 'sale';
ALTER TABLE commissions ADD COLUMN payout_id BIGINT;
ALTER TABLE commissions ADD COLUMN paid_at TIMESTAMP;
ALTER TABLE commissions ADD COLUMN reason VARCHAR;
ALTER TABLE programs ADD COLUMN approval VARCHAR DEFAULT 'auto';
ALTER TABLE programs ADD COLUMN min_payout_cents BIGINT DEFAULT 0;
ALTER TABLE partners ADD COLUMN payout_method VARCHAR;
ALTER TABLE partners ADD COLUMN payout_email VARCHAR;
`,
};
