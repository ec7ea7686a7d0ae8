import type { Migration } from './index.js';

/**
 * The outbox's large tables without a primary key on DuckDB (docs/store-engines.md#tables-unique-keys-and-indexes):
 * a message per event, a delivery per message and endpoint and an attempt per send grow with the
 * sales, and their ART indexes cost every append and every checkpoint while their ids, allocated
 * by this process, need no check. Each table is copied, in id order, into one of the same columns
 * and constraints but the key. PostgreSQL keeps its keys: there, other instances allocate ids too.
 */
export const OUTBOX_UNKEYED_SQL = `
CREATE TABLE outbox_messages_unkeyed (
  id BIGINT NOT NULL, channel VARCHAR NOT NULL, program_id BIGINT NOT NULL, type VARCHAR NOT NULL, ref VARCHAR NOT NULL,
  body VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL, targets VARCHAR
);
INSERT INTO outbox_messages_unkeyed SELECT id, channel, program_id, type, ref, body, created_at, targets FROM outbox_messages ORDER BY id;
DROP TABLE outbox_messages;
ALTER TABLE outbox_messages_unkeyed RENAME TO outbox_messages;

CREATE TABLE outbox_deliveries_unkeyed (
  id BIGINT NOT NULL, message_id BIGINT NOT NULL, channel VARCHAR NOT NULL, target_id BIGINT NOT NULL,
  status VARCHAR NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')), attempts BIGINT NOT NULL, next_attempt_at TIMESTAMP,
  lease_owner VARCHAR, lease_until TIMESTAMP, created_at TIMESTAMP NOT NULL
);
INSERT INTO outbox_deliveries_unkeyed
SELECT id, message_id, channel, target_id, status, attempts, next_attempt_at, lease_owner, lease_until, created_at FROM outbox_deliveries ORDER BY id;
DROP TABLE outbox_deliveries;
ALTER TABLE outbox_deliveries_unkeyed RENAME TO outbox_deliveries;

CREATE TABLE outbox_attempts_unkeyed (
  id BIGINT NOT NULL, delivery_id BIGINT NOT NULL, attempted_at TIMESTAMP NOT NULL, status_code BIGINT, error VARCHAR,
  duration_ms BIGINT NOT NULL, response VARCHAR
);
INSERT INTO outbox_attempts_unkeyed SELECT id, delivery_id, attempted_at, status_code, error, duration_ms, response FROM outbox_attempts ORDER BY id;
DROP TABLE outbox_attempts;
ALTER TABLE outbox_attempts_unkeyed RENAME TO outbox_attempts;
`;

export const outboxUnkeyed: Migration = { version: 24, name: 'outbox-unkeyed', sql: OUTBOX_UNKEYED_SQL };
