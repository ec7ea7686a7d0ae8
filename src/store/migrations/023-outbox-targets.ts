import type { Migration } from './index.js';

/**
 * A message's `targets` (docs/outbound-webhooks.md#the-outbox): the endpoints whose deliveries are
 * still to be written, comma-separated, set where the process's delivery worker writes them after
 * the change committed; NULL once they are written, and on every message written with its
 * deliveries. The same SQL on both engines.
 */
export const OUTBOX_TARGETS_SQL = 'ALTER TABLE outbox_messages ADD COLUMN targets VARCHAR;';

export const outboxTargets: Migration = { version: 23, name: 'outbox-targets', sql: OUTBOX_TARGETS_SQL };
