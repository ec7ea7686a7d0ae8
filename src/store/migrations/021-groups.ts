import type { Migration } from './index.js';

/**
 * Partner groups (docs/groups.md#groups): a program's groups with their rewards, the group of each
 * enrollment (null: the program's default group), and every move between groups
 * (docs/groups.md#automatic-moves). The same SQL on both engines.
 */
export const GROUPS_SQL = `
CREATE TABLE partner_groups (
  id BIGINT PRIMARY KEY, program_id BIGINT NOT NULL, name VARCHAR NOT NULL, is_default BOOLEAN NOT NULL,
  commission_type VARCHAR CHECK (commission_type IN ('percent', 'flat')), commission_value BIGINT,
  hold_days INTEGER NOT NULL, recurring_months INTEGER, lead_reward_cents BIGINT,
  next_group_id BIGINT, threshold_metric VARCHAR CHECK (threshold_metric IN ('conversions', 'revenue')), threshold_value BIGINT,
  threshold_window VARCHAR CHECK (threshold_window IN ('30d', 'all')), created_at TIMESTAMP NOT NULL
);
CREATE TABLE group_moves (
  id BIGINT PRIMARY KEY, program_id BIGINT NOT NULL, partner_program_id BIGINT NOT NULL, from_group_id BIGINT, to_group_id BIGINT NOT NULL,
  reason VARCHAR NOT NULL CHECK (reason IN ('threshold', 'manual')), sale_id BIGINT, created_at TIMESTAMP NOT NULL
);
ALTER TABLE partner_programs ADD COLUMN group_id BIGINT;
`;

export const groups: Migration = { version: 21, name: 'groups', sql: GROUPS_SQL };
