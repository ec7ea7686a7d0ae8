import type { Migration } from './index.js';

/**
 * Outbound webhooks and the outbox (docs/outbound-webhooks.md#the-outbox): a program's endpoints,
 * the messages written in the transaction of the change that causes them, one delivery per message
 * and target with its lease, and every attempt. `channel` names what a message is (`webhook`; mail
 * rides the same tables later), `target_id` the row it goes to (a webhook endpoint). Keys only on
 * ids, which are never updated (docs/store-engines.md). The same SQL on both engines.
 */
export const OUTBOX_SQL = `
CREATE TABLE webhook_endpoints (
  id BIGINT PRIMARY KEY, program_id BIGINT NOT NULL, url VARCHAR NOT NULL, description VARCHAR, events VARCHAR,
  enabled BOOLEAN NOT NULL, disabled_reason VARCHAR, secret VARCHAR NOT NULL, previous_secret VARCHAR, previous_secret_until TIMESTAMP,
  created_at TIMESTAMP NOT NULL, removed_at TIMESTAMP
);
CREATE TABLE outbox_messages (
  id BIGINT PRIMARY KEY, channel VARCHAR NOT NULL, program_id BIGINT NOT NULL, type VARCHAR NOT NULL, ref VARCHAR NOT NULL,
  body VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL
);
CREATE TABLE outbox_deliveries (
  id BIGINT PRIMARY KEY, message_id BIGINT NOT NULL, channel VARCHAR NOT NULL, target_id BIGINT NOT NULL,
  status VARCHAR NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')), attempts BIGINT NOT NULL, next_attempt_at TIMESTAMP,
  lease_owner VARCHAR, lease_until TIMESTAMP, created_at TIMESTAMP NOT NULL
);
CREATE TABLE outbox_attempts (
  id BIGINT PRIMARY KEY, delivery_id BIGINT NOT NULL, attempted_at TIMESTAMP NOT NULL, status_code BIGINT, error VARCHAR,
  duration_ms BIGINT NOT NULL, response VARCHAR
);
`;

export const outbox: Migration = { version: 14, name: 'outbox', sql: OUTBOX_SQL };
