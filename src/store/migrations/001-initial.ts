import type { Migration } from './index.js';

/*
 * Times are TIMESTAMP in UTC; money is BIGINT cents. The large event tables (clicks, customers,
 * sale_events, commissions) carry no primary-key index: their ids come from the store's allocator
 * and reports scan them by zone maps, which an ART index would not help (docs/store-engines.md#tables-unique-keys-and-indexes). Exactly-once
 * rests on the unique keys that remain: sale_transactions, customers, webhook_events.
 * Unique keys that are looked up are single columns (see customers.customer_ref).
 * The *_day columns hold the UTC day the report groups an event by: grouping on a stored DATE is
 * several times faster than computing CAST(ts AS DATE) over millions of rows.
 */
export const initial: Migration = {
  version: 1,
  name: 'initial',
  sql: `
CREATE TABLE programs (
  id BIGINT PRIMARY KEY,
  name VARCHAR NOT NULL,
  commission_type VARCHAR NOT NULL CHECK (commission_type IN ('percent', 'flat')),
  commission_value BIGINT NOT NULL,           -- basis points for percent, cents for flat
  attribution_window_days INTEGER NOT NULL,
  hold_days INTEGER NOT NULL,
  recurring_months INTEGER,                   -- NULL: every renewal; 0: first payment only
  webhook_secret VARCHAR NOT NULL,
  created_at TIMESTAMP NOT NULL
);

CREATE TABLE product_rules (
  program_id BIGINT NOT NULL,
  product_id VARCHAR NOT NULL,
  commission_type VARCHAR NOT NULL CHECK (commission_type IN ('percent', 'flat')),
  commission_value BIGINT NOT NULL,
  created_at TIMESTAMP NOT NULL,
  PRIMARY KEY (program_id, product_id)
);

CREATE TABLE api_keys (
  id BIGINT PRIMARY KEY,
  program_id BIGINT NOT NULL,
  mode VARCHAR NOT NULL CHECK (mode IN ('live', 'test')),
  key_hash VARCHAR NOT NULL UNIQUE,           -- SHA-256 hex; the key itself is never stored
  prefix VARCHAR NOT NULL,
  status VARCHAR NOT NULL CHECK (status IN ('active', 'retired')),
  created_at TIMESTAMP NOT NULL,
  retired_at TIMESTAMP
);

CREATE TABLE partners (
  id BIGINT PRIMARY KEY,
  name VARCHAR NOT NULL,
  email VARCHAR NOT NULL UNIQUE,
  created_at TIMESTAMP NOT NULL
);

CREATE TABLE partner_programs (
  id BIGINT PRIMARY KEY,
  partner_id BIGINT NOT NULL,
  program_id BIGINT NOT NULL,
  ref_code VARCHAR NOT NULL UNIQUE,
  status VARCHAR NOT NULL CHECK (status IN ('active', 'inactive')),
  created_at TIMESTAMP NOT NULL,
  UNIQUE (partner_id, program_id)
);

CREATE TABLE clicks (
  id BIGINT NOT NULL,
  click_id VARCHAR NOT NULL,                  -- the cookie value: ck_<id>_<random>
  program_id BIGINT NOT NULL,
  partner_program_id BIGINT NOT NULL,
  landing_url VARCHAR,
  referrer VARCHAR,
  is_test BOOLEAN NOT NULL,
  created_at TIMESTAMP NOT NULL,
  day DATE NOT NULL                           -- UTC day of created_at (see below)
);

CREATE TABLE customers (
  id BIGINT NOT NULL,
  -- '<program_id>:<customer_key>': DuckDB looks up single-column keys through their index,
  -- compound ones by scanning, so the unique key is one column.
  customer_ref VARCHAR NOT NULL UNIQUE,
  program_id BIGINT NOT NULL,
  customer_key VARCHAR NOT NULL,
  email VARCHAR,
  name VARCHAR,
  click_id BIGINT,                            -- clicks.id
  partner_program_id BIGINT NOT NULL,
  provider_customer_id VARCHAR,
  signup_date TIMESTAMP NOT NULL,
  attributed_from TIMESTAMP NOT NULL,         -- the click's time (the signup's without a click): the window's start
  first_purchase_date TIMESTAMP,
  status VARCHAR NOT NULL CHECK (status IN ('lead', 'conversion')),
  signup_day DATE NOT NULL,
  first_purchase_day DATE
);

-- The idempotency ledger: one row per (program, mode, transaction_id), whatever the outcome.
CREATE TABLE sale_transactions (
  txn_key VARCHAR PRIMARY KEY,                -- '<program_id>:<mode>:<transaction_id>' (one column: see customers)
  program_id BIGINT NOT NULL,
  mode VARCHAR NOT NULL CHECK (mode IN ('live', 'test')),
  transaction_id VARCHAR NOT NULL,
  sale_id BIGINT,                             -- NULL when the attribution window had expired
  created_at TIMESTAMP NOT NULL
);

CREATE TABLE sale_events (
  id BIGINT NOT NULL,
  program_id BIGINT NOT NULL,
  customer_id BIGINT NOT NULL,
  partner_program_id BIGINT NOT NULL,
  transaction_id VARCHAR NOT NULL,
  amount_cents BIGINT NOT NULL,
  tax_cents BIGINT,
  currency VARCHAR NOT NULL,
  sale_type VARCHAR NOT NULL,
  is_recurring BOOLEAN NOT NULL,
  subscription_id VARCHAR,
  subscription_interval VARCHAR,
  product_id VARCHAR,
  provider VARCHAR,
  provider_payment_id VARCHAR,
  line_items VARCHAR,                         -- JSON text as sent (VARCHAR: JSON columns refuse lone surrogates)
  source VARCHAR NOT NULL,                    -- api | stripe
  status VARCHAR NOT NULL,                    -- paid
  occurred_at TIMESTAMP,
  received_at TIMESTAMP NOT NULL,
  paid_day DATE NOT NULL                      -- UTC day of coalesce(occurred_at, received_at): the report's dating
);

CREATE TABLE test_sale_events (
  id BIGINT NOT NULL,
  program_id BIGINT NOT NULL,
  api_key_id BIGINT NOT NULL,
  transaction_id VARCHAR,
  amount_cents BIGINT,
  currency VARCHAR NOT NULL,
  customer_key VARCHAR,
  click_id VARCHAR,
  request VARCHAR NOT NULL,                   -- the request as JSON text
  received_at TIMESTAMP NOT NULL
);

CREATE TABLE commissions (
  id BIGINT NOT NULL,
  program_id BIGINT NOT NULL,
  sale_id BIGINT NOT NULL,
  partner_program_id BIGINT NOT NULL,
  amount_cents BIGINT NOT NULL,
  currency VARCHAR NOT NULL,
  status VARCHAR NOT NULL,                    -- pending until hold_until
  hold_until TIMESTAMP NOT NULL,
  created_at TIMESTAMP NOT NULL,
  day DATE NOT NULL
);

CREATE TABLE users (
  id BIGINT PRIMARY KEY,
  email VARCHAR NOT NULL UNIQUE,
  created_at TIMESTAMP NOT NULL
);

CREATE TABLE workspace_members (
  program_id BIGINT NOT NULL,
  user_id BIGINT NOT NULL,
  status VARCHAR NOT NULL CHECK (status IN ('active', 'inactive')),
  created_at TIMESTAMP NOT NULL,
  updated_at TIMESTAMP NOT NULL,
  PRIMARY KEY (program_id, user_id)
);

CREATE TABLE sessions (
  token_hash VARCHAR PRIMARY KEY,
  user_id BIGINT NOT NULL,
  created_at TIMESTAMP NOT NULL,
  expires_at TIMESTAMP NOT NULL
);

CREATE TABLE webhook_events (
  event_key VARCHAR PRIMARY KEY,              -- '<program_id>:<event id>' (one column: see customers)
  program_id BIGINT NOT NULL,
  event_id VARCHAR NOT NULL,
  type VARCHAR NOT NULL,
  outcome VARCHAR NOT NULL,                   -- recorded | skipped | ignored
  reason VARCHAR,
  sale_id BIGINT,
  received_at TIMESTAMP NOT NULL,
  payload VARCHAR NOT NULL                    -- the verified body as received
);
`,
};
