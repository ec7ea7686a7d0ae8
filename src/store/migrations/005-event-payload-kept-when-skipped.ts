import type { Migration } from './index.js';

/**
 * A webhook event's body is kept only while it may matter: for an event skipped without a sale
 * (deferred attribution re-runs those, and they are the ones an operator looks into). A recorded
 * event's data is in its sale and an ignored type's body is of no use, so theirs is NULL: writing
 * every body cost a fifth of the webhook throughput (docs/benchmarks.md). Bodies stored before stay.
 */
export const eventPayloadKeptWhenSkipped: Migration = {
  version: 5,
  name: 'event-payload-kept-when-skipped',
  sql: `
ALTER TABLE webhook_events ALTER COLUMN payload DROP NOT NULL;
`,
};
