import { DuckDBStore } from '../src/store/duckdb-store.js';
import { BULK_WRITER, rollUpStored } from '../src/store/rollups.js';

export type HistoryShape = { clicks: number; customers: number; sales: number; days: number; end: Date };

/**
 * A program's history generated entirely in SQL (INSERT … SELECT FROM range()), in time order:
 * the ceiling the demo loader is compared with, and a fast way to build 100 M clicks for the
 * report's scaling figure. Clicks spread evenly over the days; every customer comes from a click,
 * every sale has its ledger entry and commission; the rollups are built from them as the demo loader
 * builds them. Columns are named, so a migration that adds
 * columns leaves it working (the new ones take their defaults).
 */
export async function generateHistory(file: string, shape: HistoryShape): Promise<{ seconds: number; rows: number }> {
  const store = await DuckDBStore.open(file);
  const connection = await store.bulkConnection();
  const started = performance.now();
  try {
    const endUs = BigInt(shape.end.getTime()) * 1000n;
    const spanUs = BigInt(shape.days) * 86_400_000_000n;
    const startUs = endUs - spanUs;
    const run = (sql: string, params: Array<number | bigint | string> = []) => connection.run(sql, params);
    await run('BEGIN TRANSACTION');
    await run(`INSERT INTO programs (id, name, commission_type, commission_value, attribution_window_days, hold_days, recurring_months, webhook_secret, created_at)
       VALUES (1, 'Generated', 'percent', 2000, 90, 30, NULL, 'whsec_generated', make_timestamp($1::BIGINT))`, [startUs]);
    await run(`INSERT INTO partners (id, name, email, created_at) SELECT i, 'P' || i, 'p' || i || '@example.com', make_timestamp($1::BIGINT) FROM range(1, 51) r(i)`, [startUs]);
    await run(`INSERT INTO partner_programs (id, partner_id, program_id, ref_code, status, created_at) SELECT i, i, 1, 'ref' || i, 'active', make_timestamp($1::BIGINT) FROM range(1, 51) r(i)`, [startUs]);
    await run(
      `INSERT INTO clicks (id, click_id, program_id, partner_program_id, landing_url, referrer, is_test, created_at, day, visitor_hash) SELECT i, 'ck_' || i || '_' || hash(i), 1, 1 + hash(i) % 50, NULL, NULL, false, make_timestamp($1::BIGINT + CAST(i * ($2::DOUBLE / $3::BIGINT) AS BIGINT)),
         CAST(make_timestamp($1::BIGINT + CAST(i * ($2::DOUBLE / $3::BIGINT) AS BIGINT)) AS DATE), NULL
       FROM range(1, $3::BIGINT + 1) r(i)`,
      [startUs, spanUs, BigInt(shape.clicks)],
    );
    // Customer j signs up an hour after click j·step (its click_ref that click's id); every third becomes a conversion a day later.
    const step = BigInt(Math.max(1, Math.floor(shape.clicks / Math.max(1, shape.customers))));
    await run(
      `INSERT INTO customers (id, customer_ref, program_id, customer_key, email, name, click_id, partner_program_id, provider_customer_id, signup_date,
         attributed_from, first_purchase_date, status, signup_day, first_purchase_day, click_ref) SELECT j, '1:c' || j, 1, 'c' || j, NULL, NULL, j * $4::BIGINT, 1 + hash(j * $4::BIGINT) % 50, NULL,
         make_timestamp($1::BIGINT + CAST(j * $4::BIGINT * ($2::DOUBLE / $3::BIGINT) AS BIGINT) + 3600000000),
         make_timestamp($1::BIGINT + CAST(j * $4::BIGINT * ($2::DOUBLE / $3::BIGINT) AS BIGINT)),
         CASE WHEN j % 3 = 0 THEN make_timestamp($1::BIGINT + CAST(j * $4::BIGINT * ($2::DOUBLE / $3::BIGINT) AS BIGINT) + 90000000000) END,
         CASE WHEN j % 3 = 0 THEN 'conversion' ELSE 'lead' END,
         CAST(make_timestamp($1::BIGINT + CAST(j * $4::BIGINT * ($2::DOUBLE / $3::BIGINT) AS BIGINT) + 3600000000) AS DATE),
         CASE WHEN j % 3 = 0 THEN CAST(make_timestamp($1::BIGINT + CAST(j * $4::BIGINT * ($2::DOUBLE / $3::BIGINT) AS BIGINT) + 90000000000) AS DATE) END,
         'ck_' || (j * $4::BIGINT) || '_' || hash(j * $4::BIGINT)
       FROM range(1, $5::BIGINT + 1) r(j)`,
      [startUs, spanUs, BigInt(shape.clicks), step, BigInt(shape.customers)],
    );
    const saleStep = Math.max(1, Math.floor(shape.clicks / Math.max(1, shape.sales)));
    const times = `make_timestamp(LEAST($1::BIGINT + CAST(s * ${saleStep} * ($2::DOUBLE / $3::BIGINT) AS BIGINT) + 90000000000, $1::BIGINT + $2::BIGINT - 1))`;
    await run(
      `INSERT INTO sale_events (id, program_id, customer_id, partner_program_id, transaction_id, amount_cents, tax_cents, currency, sale_type, is_recurring,
         subscription_id, subscription_interval, product_id, provider, provider_payment_id, line_items, source, status, occurred_at, received_at, paid_day)
       SELECT s, 1, s, 1 + hash(s) % 50, 'in_' || s, 2900 + (s % 5) * 1000, NULL, 'USD', 'payment', false,
         NULL, NULL, NULL, 'stripe', NULL, NULL, 'api', 'paid', NULL, ${times}, CAST(${times} AS DATE) FROM range(1, $4::BIGINT + 1) r(s)`,
      [startUs, spanUs, BigInt(shape.clicks), BigInt(shape.sales)],
    );
    await run(
      `INSERT INTO sale_transactions (txn_key, program_id, mode, transaction_id, sale_id, created_at) SELECT '1:live:in_' || s, 1, 'live', 'in_' || s, s, ${times} FROM range(1, $4::BIGINT + 1) r(s)`,
      [startUs, spanUs, BigInt(shape.clicks), BigInt(shape.sales)],
    );
    await run(
      `INSERT INTO commissions (id, program_id, sale_id, partner_program_id, amount_cents, currency, status, hold_until, created_at, day)
       SELECT s, 1, s, 1 + hash(s) % 50, (2900 + (s % 5) * 1000) // 5, 'USD', 'pending', ${times} + INTERVAL 30 DAY, ${times}, CAST(${times} AS DATE)
       FROM range(1, $4::BIGINT + 1) r(s)`,
      [startUs, spanUs, BigInt(shape.clicks), BigInt(shape.sales)],
    );
    await run(rollUpStored('program_id = 1', String(BULK_WRITER)));
    await run('COMMIT');
    await run('CHECKPOINT');
  } finally {
    connection.closeSync();
    await store.close();
  }
  return { seconds: (performance.now() - started) / 1000, rows: shape.clicks + shape.customers + 3 * shape.sales + 101 };
}
