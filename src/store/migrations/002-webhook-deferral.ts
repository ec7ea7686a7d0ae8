import type { Migration } from './index.js';

/**
 * Deferred attribution of webhook events (docs/webhooks.md): the Stripe subscription and
 * customer an event names, so the events skipped as no_attribution that a later sale makes
 * attributable are found without parsing stored payloads. Events stored before stay NULL here.
 */
export const webhookDeferral: Migration = {
  version: 2,
  name: 'webhook-deferral',
  sql: `
ALTER TABLE webhook_events ADD COLUMN subscription_id VARCHAR;
ALTER TABLE webhook_events ADD COLUMN provider_customer_id VARCHAR;
`,
};
