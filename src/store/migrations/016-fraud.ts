import type { Migration } from './index.js';

/**
 * Fraud rules and held commissions (docs/fraud.md): a program's modes per rule (JSON text, null for
 * the defaults), and the fraud events rules write with a sale's commission, append-only, keyed by
 * id. A held commission is one whose status is `on_hold`. The same SQL on both engines.
 */
export const FRAUD_SQL = `
ALTER TABLE programs ADD COLUMN fraud_rules VARCHAR;
CREATE TABLE fraud_events (
  id BIGINT PRIMARY KEY, program_id BIGINT NOT NULL, commission_id BIGINT NOT NULL, sale_id BIGINT NOT NULL, partner_program_id BIGINT NOT NULL,
  rule VARCHAR NOT NULL, action VARCHAR NOT NULL, evidence VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL
);
`;

export const fraud: Migration = { version: 16, name: 'fraud', sql: FRAUD_SQL };
