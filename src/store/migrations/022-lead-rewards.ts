import type { Migration } from './index.js';

/**
 * Lead rewards (docs/groups.md#lead-rewards): a commission of `type: lead` has no sale, and
 * `lead_rewards` holds one row per customer rewarded, whose key makes the reward once per customer
 * whatever races. The same SQL on both engines.
 */
export const LEAD_REWARDS_SQL = `
ALTER TABLE commissions ALTER COLUMN sale_id DROP NOT NULL;
CREATE TABLE lead_rewards (customer_id BIGINT PRIMARY KEY, commission_id BIGINT NOT NULL);
`;

export const leadRewards: Migration = { version: 22, name: 'lead-rewards', sql: LEAD_REWARDS_SQL };
