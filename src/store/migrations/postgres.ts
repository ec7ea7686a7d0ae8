import { BULK_WRITER, ROLLUPS_PENDING_SQL, rollUpStored } from '../rollups.js';
import { SIGN_IN_CODES_SQL } from './012-sign-in-codes.js';
import { REPORT_ROLLUPS_SQL } from './013-report-rollups.js';
import { OUTBOX_SQL } from './014-outbox.js';
import { PROMOTION_CODES_SQL } from './015-promotion-codes.js';
import { FRAUD_SQL } from './016-fraud.js';
import { STRIPE_API_KEY_SQL } from './017-stripe-api-key.js';
import { APPLICATIONS_SQL, AUTO_APPROVE_SQL } from './018-applications.js';
import { MAIL_UNSUBSCRIBES_SQL } from './020-mail-unsubscribes.js';
import { GROUPS_SQL } from './021-groups.js';
import { LEAD_REWARDS_SQL } from './022-lead-rewards.js';
import { OUTBOX_TARGETS_SQL } from './023-outbox-targets.js';
import type { Migration } from './index.js';

/*
 * The PostgreSQL schema (docs/store-engines.md#schema-and-migrations-on-postgresql). Its first migration is the DuckDB schema as
 * DuckDB's migrations 1–11 left it, column for column and in the same order (appends name their
 * columns, SQL is shared), plus what PostgreSQL needs where DuckDB scans by zone maps: primary keys
 * on the event tables and the indexes the service's lookups use. `hugeint` is a domain over
 * numeric(38,0), so sums of money are cast alike on both engines. `id_counters` hands out ids
 * to every instance (PostgresStore.nextId).
 */
const schema: Migration = {
  version: 1,
  name: 'schema',
  sql: `
CREATE DOMAIN hugeint AS numeric(38, 0);

CREATE TABLE id_counters (name VARCHAR PRIMARY KEY, next BIGINT NOT NULL);
INSERT INTO id_counters (name, next)
SELECT unnest(ARRAY['programs', 'api_keys', 'partners', 'partner_programs', 'clicks', 'customers', 'sale_events', 'test_sale_events',
  'commissions', 'users', 'refunds', 'payouts', 'payout_batches']), 1;

CREATE TABLE settings (name VARCHAR PRIMARY KEY, value VARCHAR NOT NULL);

CREATE TABLE programs (
  id BIGINT PRIMARY KEY, name VARCHAR NOT NULL,
  commission_type VARCHAR NOT NULL CHECK (commission_type IN ('percent', 'flat')), commission_value BIGINT NOT NULL,
  attribution_window_days INTEGER NOT NULL, hold_days INTEGER NOT NULL, recurring_months INTEGER, webhook_secret VARCHAR NOT NULL,
  created_at TIMESTAMP NOT NULL, approval VARCHAR DEFAULT 'auto', min_payout_cents BIGINT DEFAULT 0, landing_url VARCHAR
);

CREATE TABLE product_rules (
  program_id BIGINT, product_id VARCHAR, commission_type VARCHAR NOT NULL CHECK (commission_type IN ('percent', 'flat')),
  commission_value BIGINT NOT NULL, created_at TIMESTAMP NOT NULL, PRIMARY KEY (program_id, product_id)
);

CREATE TABLE api_keys (
  id BIGINT PRIMARY KEY, program_id BIGINT NOT NULL, mode VARCHAR NOT NULL CHECK (mode IN ('live', 'test')),
  key_hash VARCHAR NOT NULL UNIQUE, prefix VARCHAR NOT NULL, status VARCHAR NOT NULL CHECK (status IN ('active', 'retired')),
  created_at TIMESTAMP NOT NULL, retired_at TIMESTAMP
);
CREATE INDEX api_keys_program ON api_keys (program_id);

CREATE TABLE partners (
  id BIGINT PRIMARY KEY, name VARCHAR NOT NULL, email VARCHAR NOT NULL UNIQUE, created_at TIMESTAMP NOT NULL,
  payout_method VARCHAR, payout_email VARCHAR
);

CREATE TABLE partner_programs (
  id BIGINT PRIMARY KEY, partner_id BIGINT NOT NULL, program_id BIGINT NOT NULL, ref_code VARCHAR NOT NULL UNIQUE,
  status VARCHAR NOT NULL CHECK (status IN ('active', 'inactive')), created_at TIMESTAMP NOT NULL, UNIQUE (partner_id, program_id)
);
CREATE INDEX partner_programs_program ON partner_programs (program_id);

CREATE TABLE clicks (
  id BIGINT PRIMARY KEY, click_id VARCHAR NOT NULL, program_id BIGINT NOT NULL, partner_program_id BIGINT NOT NULL,
  landing_url VARCHAR, referrer VARCHAR, is_test BOOLEAN NOT NULL, created_at TIMESTAMP NOT NULL, day DATE, visitor_hash BIGINT
);
CREATE INDEX clicks_program_time ON clicks (program_id, created_at);
CREATE INDEX clicks_visitor ON clicks (visitor_hash, created_at) WHERE visitor_hash IS NOT NULL;

CREATE TABLE customers (
  id BIGINT PRIMARY KEY, customer_ref VARCHAR NOT NULL UNIQUE, program_id BIGINT NOT NULL, customer_key VARCHAR NOT NULL,
  email VARCHAR, name VARCHAR, click_id BIGINT, partner_program_id BIGINT NOT NULL, provider_customer_id VARCHAR,
  signup_date TIMESTAMP NOT NULL, attributed_from TIMESTAMP NOT NULL, first_purchase_date TIMESTAMP,
  status VARCHAR NOT NULL CHECK (status IN ('lead', 'conversion')), signup_day DATE NOT NULL, first_purchase_day DATE, click_ref VARCHAR
);
CREATE INDEX customers_program_time ON customers (program_id, signup_date);
CREATE INDEX customers_click ON customers (click_id);
CREATE INDEX customers_email ON customers (program_id, email);
CREATE INDEX customers_provider ON customers (program_id, provider_customer_id);
CREATE INDEX customers_click_ref ON customers (program_id, click_ref);

CREATE TABLE sale_transactions (
  txn_key VARCHAR PRIMARY KEY, program_id BIGINT NOT NULL, mode VARCHAR NOT NULL CHECK (mode IN ('live', 'test')),
  transaction_id VARCHAR NOT NULL, sale_id BIGINT, created_at TIMESTAMP NOT NULL
);

CREATE TABLE sale_events (
  id BIGINT PRIMARY KEY, program_id BIGINT NOT NULL, customer_id BIGINT NOT NULL, partner_program_id BIGINT NOT NULL,
  transaction_id VARCHAR NOT NULL, amount_cents BIGINT NOT NULL, tax_cents BIGINT, currency VARCHAR NOT NULL, sale_type VARCHAR NOT NULL,
  is_recurring BOOLEAN NOT NULL, subscription_id VARCHAR, subscription_interval VARCHAR, product_id VARCHAR, provider VARCHAR,
  provider_payment_id VARCHAR, line_items VARCHAR, source VARCHAR NOT NULL, status VARCHAR NOT NULL, occurred_at TIMESTAMP,
  received_at TIMESTAMP NOT NULL, paid_day DATE NOT NULL, payment_intent_id VARCHAR, charge_id VARCHAR
);
CREATE INDEX sale_events_program_day ON sale_events (program_id, paid_day);
CREATE INDEX sale_events_transaction ON sale_events (program_id, transaction_id);
CREATE INDEX sale_events_provider_payment ON sale_events (program_id, provider_payment_id);
CREATE INDEX sale_events_subscription ON sale_events (program_id, subscription_id);
CREATE INDEX sale_events_payment_intent ON sale_events (program_id, payment_intent_id);
CREATE INDEX sale_events_charge ON sale_events (program_id, charge_id);

CREATE TABLE test_sale_events (
  id BIGINT PRIMARY KEY, program_id BIGINT NOT NULL, api_key_id BIGINT NOT NULL, transaction_id VARCHAR, amount_cents BIGINT,
  currency VARCHAR NOT NULL, customer_key VARCHAR, click_id VARCHAR, request VARCHAR NOT NULL, received_at TIMESTAMP NOT NULL,
  provider_payment_id VARCHAR, payment_intent_id VARCHAR, charge_id VARCHAR
);
CREATE INDEX test_sale_events_program ON test_sale_events (program_id, received_at);
CREATE INDEX test_sale_events_transaction ON test_sale_events (program_id, transaction_id);
CREATE INDEX test_sale_events_payment_intent ON test_sale_events (program_id, payment_intent_id);
CREATE INDEX test_sale_events_charge ON test_sale_events (program_id, charge_id);

CREATE TABLE commissions (
  id BIGINT PRIMARY KEY, program_id BIGINT NOT NULL, sale_id BIGINT NOT NULL, partner_program_id BIGINT NOT NULL,
  amount_cents BIGINT NOT NULL, currency VARCHAR NOT NULL, status VARCHAR NOT NULL, hold_until TIMESTAMP NOT NULL,
  created_at TIMESTAMP NOT NULL, day DATE NOT NULL, type VARCHAR DEFAULT 'sale', payout_id BIGINT, paid_at TIMESTAMP, reason VARCHAR,
  percent_bp BIGINT
);
CREATE INDEX commissions_program_status ON commissions (program_id, status);
CREATE INDEX commissions_sale ON commissions (sale_id);
CREATE INDEX commissions_payout ON commissions (payout_id) WHERE payout_id IS NOT NULL;
CREATE INDEX commissions_enrollment ON commissions (partner_program_id, day);

CREATE TABLE refunds (
  id BIGINT NOT NULL UNIQUE, refund_key VARCHAR PRIMARY KEY, program_id BIGINT NOT NULL, mode VARCHAR NOT NULL CHECK (mode IN ('live', 'test')),
  refund_id VARCHAR NOT NULL, sale_id BIGINT NOT NULL, partner_program_id BIGINT, amount_cents BIGINT NOT NULL, currency VARCHAR NOT NULL,
  reason VARCHAR, source VARCHAR NOT NULL, completes_sale BOOLEAN NOT NULL, paid_at TIMESTAMP, paid_day DATE, received_at TIMESTAMP NOT NULL,
  day DATE
);
CREATE INDEX refunds_sale ON refunds (sale_id);
CREATE INDEX refunds_program_day ON refunds (program_id, day);

CREATE TABLE users (id BIGINT PRIMARY KEY, email VARCHAR NOT NULL UNIQUE, created_at TIMESTAMP NOT NULL);

CREATE TABLE workspace_members (
  program_id BIGINT, user_id BIGINT, status VARCHAR NOT NULL CHECK (status IN ('active', 'inactive')), created_at TIMESTAMP NOT NULL,
  updated_at TIMESTAMP NOT NULL, PRIMARY KEY (program_id, user_id)
);
CREATE INDEX workspace_members_user ON workspace_members (user_id);

CREATE TABLE sessions (token_hash VARCHAR PRIMARY KEY, user_id BIGINT NOT NULL, created_at TIMESTAMP NOT NULL, expires_at TIMESTAMP NOT NULL);
CREATE TABLE partner_sessions (token_hash VARCHAR PRIMARY KEY, partner_id BIGINT NOT NULL, created_at TIMESTAMP NOT NULL, expires_at TIMESTAMP NOT NULL);

CREATE TABLE webhook_events (
  event_key VARCHAR PRIMARY KEY, program_id BIGINT NOT NULL, event_id VARCHAR NOT NULL, type VARCHAR NOT NULL, outcome VARCHAR NOT NULL,
  reason VARCHAR, sale_id BIGINT, received_at TIMESTAMP NOT NULL, payload VARCHAR, subscription_id VARCHAR, provider_customer_id VARCHAR,
  payment_intent_id VARCHAR, invoice_id VARCHAR, charge_id VARCHAR, seq BIGSERIAL
);
CREATE INDEX webhook_events_received ON webhook_events (program_id, received_at);
CREATE INDEX webhook_events_skipped ON webhook_events (program_id) WHERE outcome = 'skipped';

CREATE TABLE invoice_payments (
  program_id BIGINT NOT NULL, invoice_id VARCHAR NOT NULL, payment_intent_id VARCHAR, charge_id VARCHAR, created_at TIMESTAMP NOT NULL
);
CREATE INDEX invoice_payments_invoice ON invoice_payments (program_id, invoice_id);

CREATE TABLE payout_batches (id BIGINT PRIMARY KEY, program_id BIGINT NOT NULL, created_at TIMESTAMP NOT NULL);

CREATE TABLE payouts (
  id BIGINT PRIMARY KEY, batch_id BIGINT NOT NULL, program_id BIGINT NOT NULL, partner_id BIGINT NOT NULL, currency VARCHAR NOT NULL,
  amount_cents hugeint NOT NULL, commission_ids BIGINT[] NOT NULL, status VARCHAR NOT NULL CHECK (status IN ('processing', 'paid', 'canceled')),
  created_at TIMESTAMP NOT NULL, paid_at TIMESTAMP
);
CREATE INDEX payouts_program ON payouts (program_id, created_at);
CREATE INDEX payouts_batch ON payouts (batch_id);
`,
};

/*
 * The reports' rollups per hour and per day (docs/rollups.md#the-migration), built from the events
 * already stored, and the indexes that find the events of a window's partial hours by instant. The
 * reports no longer read events by their stored day, so those indexes go.
 */
const rollups: Migration = {
  version: 2,
  name: 'report rollups',
  sql: `
${REPORT_ROLLUPS_SQL}

DROP INDEX sale_events_program_day;
CREATE INDEX sale_events_program_paid ON sale_events (program_id, (coalesce(occurred_at, received_at)));
CREATE INDEX customers_program_purchase ON customers (program_id, first_purchase_date);
DROP INDEX refunds_program_day;
CREATE INDEX refunds_program_paid ON refunds (program_id, paid_at);
CREATE INDEX refunds_program_received ON refunds (program_id, received_at);
CREATE INDEX commissions_program_time ON commissions (program_id, created_at);
${rollUpStored('true', String(BULK_WRITER))};
`,
};

/**
 * The rate limits' counters, shared by every instance (docs/store-engines.md#rate-limits-across-instances). UNLOGGED:
 * counts of windows a minute long need no WAL, and a crash that empties the table only restarts
 * the windows.
 */
const rateCounters: Migration = {
  version: 3,
  name: 'rate counters',
  sql: 'CREATE UNLOGGED TABLE rate_counters (key VARCHAR PRIMARY KEY, count BIGINT NOT NULL, ends_at BIGINT NOT NULL)',
};

/** Sign-in codes and partner status: DuckDB's migration 12, the same SQL. */
const signInCodes: Migration = { version: 4, name: 'sign-in-codes', sql: SIGN_IN_CODES_SQL };

/** Applied in order on open, under an advisory lock so that instances starting together apply each once. */
/**
 * The table of rows whose sums the rollups do not hold yet: reports read it on both engines, and
 * PostgreSQL, which rolls up in the statement that writes, leaves it empty (docs/rollups.md#pending-rows).
 */
const rollupsPending: Migration = { version: 5, name: 'rollups-pending', sql: ROLLUPS_PENDING_SQL };

/**
 * The outbox: DuckDB's migration 14, the ids every instance takes, and the indexes the worker's
 * claims and the delivery log read by (docs/outbound-webhooks.md#the-outbox).
 */
const outbox: Migration = {
  version: 6,
  name: 'outbox',
  sql: `
${OUTBOX_SQL}
INSERT INTO id_counters (name, next) SELECT unnest(ARRAY['webhook_endpoints', 'outbox_messages', 'outbox_deliveries', 'outbox_attempts']), 1;
CREATE INDEX webhook_endpoints_program ON webhook_endpoints (program_id);
CREATE INDEX outbox_messages_ref ON outbox_messages (ref);
CREATE INDEX outbox_deliveries_due ON outbox_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX outbox_deliveries_message ON outbox_deliveries (message_id);
CREATE INDEX outbox_deliveries_target ON outbox_deliveries (target_id, id);
CREATE INDEX outbox_attempts_delivery ON outbox_attempts (delivery_id);
`,
};

/** Promotion codes: DuckDB's migration 15, their ids, and the indexes codes and code sales are read by. */
const promotionCodes: Migration = {
  version: 7,
  name: 'promotion-codes',
  sql: `
${PROMOTION_CODES_SQL}
INSERT INTO id_counters (name, next) VALUES ('promotion_codes', 1);
CREATE INDEX promotion_codes_program ON promotion_codes (program_id);
CREATE INDEX code_sales_program_paid ON code_sales (program_id, paid_at);
`,
};

/**
 * Fraud rules and events: DuckDB's migration 16, their ids, the index a program's events are listed
 * by, and the one the refund-rate rule reads an enrollment's recent sales by (docs/fraud.md#the-rules).
 */
const fraud: Migration = {
  version: 8,
  name: 'fraud',
  sql: `
${FRAUD_SQL}
INSERT INTO id_counters (name, next) VALUES ('fraud_events', 1);
CREATE INDEX fraud_events_program ON fraud_events (program_id, commission_id);
CREATE INDEX sale_events_enrollment_received ON sale_events (partner_program_id, received_at);
`,
};

/** A program's restricted Stripe API key: DuckDB's migration 17. */
const stripeApiKey: Migration = { version: 9, name: 'stripe-api-key', sql: STRIPE_API_KEY_SQL };

/** Partner applications: DuckDB's migrations 18 and 19, and the ids every instance takes. */
const applications: Migration = {
  version: 10,
  name: 'applications',
  sql: `
${APPLICATIONS_SQL}
${AUTO_APPROVE_SQL};
INSERT INTO id_counters (name, next) VALUES ('partner_applications', 1);
`,
};

/** Who switched off which kind of mail: DuckDB's migration 20. */
const mailUnsubscribes: Migration = { version: 11, name: 'mail-unsubscribes', sql: MAIL_UNSUBSCRIBES_SQL };

/** Partner groups: DuckDB's migration 21, and the ids every instance takes. */
const groups: Migration = {
  version: 12,
  name: 'groups',
  sql: `${GROUPS_SQL}
CREATE INDEX group_moves_enrollment ON group_moves (partner_program_id);
INSERT INTO id_counters (name, next) VALUES ('partner_groups', 1), ('group_moves', 1);
`,
};

/** Lead rewards: DuckDB's migration 22. */
const leadRewards: Migration = { version: 13, name: 'lead-rewards', sql: LEAD_REWARDS_SQL };

/** Messages whose deliveries are written after their change: DuckDB's migration 23. */
const outboxTargets: Migration = { version: 14, name: 'outbox-targets', sql: OUTBOX_TARGETS_SQL };

export const postgresMigrations: readonly Migration[] = [
  schema, rollups, rateCounters, signInCodes, rollupsPending, outbox, promotionCodes, fraud, stripeApiKey, applications, mailUnsubscribes, groups, leadRewards, outboxTargets,
];
