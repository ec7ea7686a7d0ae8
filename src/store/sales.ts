import type { Sql } from './db.js';

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
};

export type CommissionRow = {
  id: number;
  program_id: number;
  sale_id: number;
  partner_program_id: number;
  amount_cents: number;
  currency: string;
  status: 'pending';
  hold_until: Date;
  created_at: Date;
};

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
};

/** The ledger entry of a transaction id: present means seen; sale_id null means window expired. */
export function findTransaction(
  sql: Sql, programId: number, mode: SaleMode, transactionId: string,
): Promise<{ sale_id: number | null } | undefined> {
  return sql.one('SELECT sale_id FROM sale_transactions WHERE program_id = $1 AND mode = $2 AND transaction_id = $3', [
    programId, mode, transactionId,
  ]);
}

export async function insertTransaction(
  sql: Sql, programId: number, mode: SaleMode, transactionId: string, saleId: number | null, at: Date,
): Promise<void> {
  await sql.run('INSERT INTO sale_transactions (program_id, mode, transaction_id, sale_id, created_at) VALUES ($1, $2, $3, $4, $5)', [
    programId, mode, transactionId, saleId, at,
  ]);
}

export async function insertSaleEvent(sql: Sql, s: SaleEventRow): Promise<void> {
  await sql.run(
    `INSERT INTO sale_events (id, program_id, customer_id, partner_program_id, transaction_id, amount_cents, tax_cents,
       currency, sale_type, is_recurring, subscription_id, subscription_interval, product_id, provider,
       provider_payment_id, line_items, source, status, occurred_at, received_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)`,
    [s.id, s.program_id, s.customer_id, s.partner_program_id, s.transaction_id, s.amount_cents, s.tax_cents,
      s.currency, s.sale_type, s.is_recurring, s.subscription_id, s.subscription_interval, s.product_id, s.provider,
      s.provider_payment_id, s.line_items, s.source, s.status, s.occurred_at, s.received_at],
  );
}

export async function insertCommission(sql: Sql, c: CommissionRow): Promise<void> {
  await sql.run(
    `INSERT INTO commissions (id, program_id, sale_id, partner_program_id, amount_cents, currency, status, hold_until, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [c.id, c.program_id, c.sale_id, c.partner_program_id, c.amount_cents, c.currency, c.status, c.hold_until, c.created_at],
  );
}

/** When the subscription's first recorded sale was received; recurring durations count from it. */
export async function firstSubscriptionSale(sql: Sql, programId: number, subscriptionId: string): Promise<Date | undefined> {
  const row = await sql.one<{ first: Date | null }>(
    'SELECT min(received_at) AS first FROM sale_events WHERE program_id = $1 AND subscription_id = $2',
    [programId, subscriptionId],
  );
  return row?.first ?? undefined;
}

export async function insertTestSale(sql: Sql, t: TestSaleRow): Promise<void> {
  await sql.run(
    `INSERT INTO test_sale_events (id, program_id, api_key_id, transaction_id, amount_cents, currency, customer_key, click_id, request, received_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [t.id, t.program_id, t.api_key_id, t.transaction_id, t.amount_cents, t.currency, t.customer_key, t.click_id, t.request, t.received_at],
  );
}
