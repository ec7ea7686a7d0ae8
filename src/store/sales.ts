import { list, type Sql } from './db.js';
import { programKey } from './program-key.js';

export type SaleMode = 'live' | 'test';

export type SaleEventRow = {
  id: number;
  program_id: number;
  customer_id: number;
  partner_program_id: number;
  transaction_id: string;
  amount_cents: number;
  tax_cents: number | null;
  currency: string;
  sale_type: 'payment' | 'subscription';
  is_recurring: boolean;
  subscription_id: string | null;
  subscription_interval: string | null;
  product_id: string | null;
  provider: string | null;
  provider_payment_id: string | null;
  line_items: string | null;
  source: 'api' | 'stripe';
  status: 'paid';
  occurred_at: Date | null;
  received_at: Date;
} & PaymentIds;

/** The Stripe payment intent and charge a sale's webhook event carried (refunds find the sale by them, docs/refunds-and-payouts.md#stripe-chargerefunded). */
export type PaymentIds = { payment_intent_id: string | null; charge_id: string | null };

export type CommissionRow = {
  id: number;
  program_id: number;
  /** The sale that earned it; null for a lead reward (docs/groups.md#lead-rewards). */
  sale_id: number | null;
  partner_program_id: number;
  amount_cents: number;
  currency: string;
  status: CommissionStatus;
  hold_until: Date;
  created_at: Date;
  type: 'sale' | 'clawback' | 'lead';
  payout_id: number | null;
  paid_at: Date | null;
  reason: string | null;
  /** The percentage (basis points) the amount was computed with; null for a flat rule or a clawback (docs/refunds-and-payouts.md#effect-on-the-sales-commission). */
  percent_bp: number | null;
};

/** Stored statuses; `pending` reads as `approved` after the hold under automatic approval (docs/refunds-and-payouts.md#the-status-a-commission-reads-as). */
export type CommissionStatus = 'pending' | 'on_hold' | 'approved' | 'processing' | 'paid' | 'reversed' | 'rejected';

export type TestSaleRow = {
  id: number;
  program_id: number;
  api_key_id: number;
  transaction_id: string | null;
  amount_cents: number | null;
  currency: string;
  customer_key: string | null;
  click_id: string | null;
  request: string;
  received_at: Date;
  provider_payment_id: string | null;
} & PaymentIds;

export type TransactionRow = { txn_key: string; program_id: number; mode: SaleMode; transaction_id: string; sale_id: number | null; created_at: Date };

/** Ledger entries by key (programKey(program, mode, transaction id)): present means seen; sale_id null means the window had expired. */
export async function findTransactions(sql: Sql, keys: string[]): Promise<Map<string, number | null>> {
  if (keys.length === 0) return new Map();
  const rows = await sql.all<{ txn_key: string; sale_id: number | null }>(
    'SELECT txn_key, sale_id FROM sale_transactions WHERE txn_key = ANY($1::VARCHAR[])',
    [list(keys)],
  );
  return new Map(rows.map((r) => [r.txn_key, r.sale_id]));
}

export function insertTransactions(sql: Sql, rows: TransactionRow[]): Promise<void> {
  return sql.append('sale_transactions', [
    ['txn_key', 'VARCHAR'], ['program_id', 'BIGINT'], ['mode', 'VARCHAR'], ['transaction_id', 'VARCHAR'], ['sale_id', 'BIGINT'], ['created_at', 'TIMESTAMP'],
  ], rows);
}

export function insertSaleEvents(sql: Sql, rows: SaleEventRow[]): Promise<void> {
  return sql.append('sale_events', [
    ['id', 'BIGINT'], ['program_id', 'BIGINT'], ['customer_id', 'BIGINT'], ['partner_program_id', 'BIGINT'], ['transaction_id', 'VARCHAR'],
    ['amount_cents', 'BIGINT'], ['tax_cents', 'BIGINT'], ['currency', 'VARCHAR'], ['sale_type', 'VARCHAR'], ['is_recurring', 'BOOLEAN'],
    ['subscription_id', 'VARCHAR'], ['subscription_interval', 'VARCHAR'], ['product_id', 'VARCHAR'], ['provider', 'VARCHAR'],
    ['provider_payment_id', 'VARCHAR'], ['line_items', 'VARCHAR'], ['source', 'VARCHAR'], ['status', 'VARCHAR'], ['occurred_at', 'TIMESTAMP'],
    ['received_at', 'TIMESTAMP'], ['paid_day', 'DATE'], ['payment_intent_id', 'VARCHAR'], ['charge_id', 'VARCHAR'],
  ], rows.map((s) => ({ ...s, paid_day: s.occurred_at ?? s.received_at })));
}

export function insertCommissions(sql: Sql, rows: CommissionRow[]): Promise<void> {
  return sql.append('commissions', [
    ['id', 'BIGINT'], ['program_id', 'BIGINT'], ['sale_id', 'BIGINT'], ['partner_program_id', 'BIGINT'], ['amount_cents', 'BIGINT'],
    ['currency', 'VARCHAR'], ['status', 'VARCHAR'], ['hold_until', 'TIMESTAMP'], ['created_at', 'TIMESTAMP'], ['day', 'DATE'],
    ['type', 'VARCHAR'], ['payout_id', 'BIGINT'], ['paid_at', 'TIMESTAMP'], ['reason', 'VARCHAR'], ['percent_bp', 'BIGINT'],
  ], rows.map((c) => ({ ...c, day: c.created_at })));
}

export function insertTestSales(sql: Sql, rows: TestSaleRow[]): Promise<void> {
  return sql.append('test_sale_events', [
    ['id', 'BIGINT'], ['program_id', 'BIGINT'], ['api_key_id', 'BIGINT'], ['transaction_id', 'VARCHAR'], ['amount_cents', 'BIGINT'],
    ['currency', 'VARCHAR'], ['customer_key', 'VARCHAR'], ['click_id', 'VARCHAR'], ['request', 'VARCHAR'], ['received_at', 'TIMESTAMP'],
    ['provider_payment_id', 'VARCHAR'], ['payment_intent_id', 'VARCHAR'], ['charge_id', 'VARCHAR'],
  ], rows);
}

/** When each subscription's first sale was received, by programKey(program, subscription id); recurring durations count from it. */
export async function firstSubscriptionSales(sql: Sql, programIds: number[], subscriptionIds: string[]): Promise<Map<string, Date>> {
  if (subscriptionIds.length === 0) return new Map();
  const rows = await sql.all<{ program_id: number; subscription_id: string; first: Date }>(
    `SELECT program_id, subscription_id, min(received_at) AS first FROM sale_events
     WHERE program_id = ANY($1::BIGINT[]) AND subscription_id = ANY($2::VARCHAR[])
     GROUP BY program_id, subscription_id`,
    [list(programIds), list(subscriptionIds)],
  );
  return new Map(rows.map((r) => [programKey(r.program_id, r.subscription_id), r.first]));
}
