import type { Migration } from './index.js';

/**
 * A program's restricted Stripe API key, which reconciliation reads Stripe's events with
 * (docs/stripe-reconciliation.md#the-restricted-key): kept like the webhook secret, never shown again.
 * The same SQL on both engines.
 */
export const STRIPE_API_KEY_SQL = 'ALTER TABLE programs ADD COLUMN stripe_api_key VARCHAR;';

export const stripeApiKey: Migration = { version: 17, name: 'stripe-api-key', sql: STRIPE_API_KEY_SQL };
