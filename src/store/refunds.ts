import { list, type Columns, type Sql } from './db.js';
import { statusAt } from './commissions.js';
import type { CommissionRow, CommissionStatus, SaleMode } from './sales.js';

export type RefundRow = {
  id: number;
  /** programKey(program, mode, refund id): the unique key that makes a refund id count once. */
  refund_key: string;
  program_id: number;
  mode: SaleMode;
  refund_id: string;
  sale_id: number;
  /** The sale's enrollment; null for a test refund. */
  partner_program_id: number | null;
  amount_cents: number;
  currency: string;
  reason: string | null;
  source: 'api' | 'stripe';
  /** This refund brought the sale's refunded total to its amount. */
  completes_sale: boolean;
  /** The sale's report instant (occurred_at, else received_at); null for a test refund, which reports never count. */
  paid_at: Date | null;
  received_at: Date;
};

const REFUND_COLUMNS: Columns<RefundRow & { paid_day: Date | null; day: Date | null }> = [
  ['id', 'BIGINT'], ['refund_key', 'VARCHAR'], ['program_id', 'BIGINT'], ['mode', 'VARCHAR'], ['refund_id', 'VARCHAR'], ['sale_id', 'BIGINT'],
  ['partner_program_id', 'BIGINT'], ['amount_cents', 'BIGINT'], ['currency', 'VARCHAR'], ['reason', 'VARCHAR'], ['source', 'VARCHAR'], ['completes_sale', 'BOOLEAN'],
  ['paid_at', 'TIMESTAMP'], ['paid_day', 'DATE'], ['received_at', 'TIMESTAMP'], ['day', 'DATE'],
];

/** A refund already recorded under a row's key fails the append (the primary key). Test refunds get no report days. */
export function insertRefunds(sql: Sql, rows: RefundRow[]): Promise<void> {
  return sql.append('refunds', REFUND_COLUMNS, rows.map((r) => ({ ...r, paid_day: r.paid_at, day: r.mode === 'live' ? r.received_at : null })));
}

export type RecordedRefund = { id: number; sale_id: number };

/** Recorded refunds by key (programKey(program, mode, refund id)). */
export async function findRefunds(sql: Sql, keys: string[]): Promise<Map<string, RecordedRefund>> {
  if (keys.length === 0) return new Map();
  const rows = await sql.all<RecordedRefund & { refund_key: string }>(
    'SELECT refund_key, id, sale_id FROM refunds WHERE refund_key = ANY($1::VARCHAR[])',
    [list(keys)],
  );
  return new Map(rows.map((r) => [r.refund_key, { id: r.id, sale_id: r.sale_id }]));
}

/** A sale as a refund needs it: its amount, what was refunded of it so far, and where the report dates it. */
export type RefundableSale = {
  id: number;
  program_id: number;
  /** The enrollment the sale is attributed to; null for a test sale. */
  partner_program_id: number | null;
  amount_cents: number;
  currency: string;
  /** occurred_at, else received_at (a test sale: received_at). */
  paid_at: Date;
  refunded_cents: number;
};

// A test sale may have been recorded without an amount: it has nothing to refund.
const SALE_TABLES: Record<SaleMode, { table: string; amount: string; paidAt: string; enrollment: string }> = {
  live: { table: 'sale_events', amount: 's.amount_cents', paidAt: 'coalesce(s.occurred_at, s.received_at)', enrollment: 's.partner_program_id' },
  test: { table: 'test_sale_events', amount: 'coalesce(s.amount_cents, 0)', paidAt: 's.received_at', enrollment: 'NULL' },
};

/**
 * Sales of one mode by id, with their refunded totals. A sale's refunds never add up to more than
 * its amount, so the total fits a BIGINT.
 */
export function findRefundableSales(sql: Sql, mode: SaleMode, ids: number[]): Promise<RefundableSale[]> {
  if (ids.length === 0) return Promise.resolve([]);
  const { table, amount, paidAt, enrollment } = SALE_TABLES[mode];
  return sql.all<RefundableSale>(
    `SELECT s.id, s.program_id, ${enrollment} AS partner_program_id, ${amount} AS amount_cents, s.currency, ${paidAt} AS paid_at,
       CAST(coalesce((SELECT sum(r.amount_cents) FROM refunds r WHERE r.mode = $2 AND r.sale_id = s.id), 0) AS BIGINT) AS refunded_cents
     FROM ${table} s WHERE s.id = ANY($1::BIGINT[])`,
    [list(ids), mode],
  );
}

/** The ids a sale can be found by from a Stripe charge. */
export type SalePaymentRefs = {
  id: number;
  program_id: number;
  transaction_id: string | null;
  provider_payment_id: string | null;
  payment_intent_id: string | null;
  charge_id: string | null;
};

/** The programs' sales of one mode whose transaction id, provider payment id, payment intent or charge is one of `refs`, by id. */
export function findSalesByPaymentRefs(sql: Sql, mode: SaleMode, programIds: number[], refs: string[]): Promise<SalePaymentRefs[]> {
  if (refs.length === 0) return Promise.resolve([]);
  return sql.all<SalePaymentRefs>(
    `SELECT id, program_id, transaction_id, provider_payment_id, payment_intent_id, charge_id FROM ${SALE_TABLES[mode].table}
     WHERE program_id = ANY($1::BIGINT[]) AND (transaction_id = ANY($2::VARCHAR[]) OR provider_payment_id = ANY($2::VARCHAR[])
       OR payment_intent_id = ANY($2::VARCHAR[]) OR charge_id = ANY($2::VARCHAR[]))
     ORDER BY id`,
    [list(programIds), list(refs)],
  );
}

export type InvoicePaymentRow = { program_id: number; invoice_id: string; payment_intent_id: string | null; charge_id: string | null; created_at: Date };

const INVOICE_PAYMENT_COLUMNS: Columns<InvoicePaymentRow> = [
  ['program_id', 'BIGINT'], ['invoice_id', 'VARCHAR'], ['payment_intent_id', 'VARCHAR'], ['charge_id', 'VARCHAR'], ['created_at', 'TIMESTAMP'],
];

/** Links are not unique: the same link written twice (a replayed event) finds the same invoice. */
export function insertInvoicePayments(sql: Sql, rows: InvoicePaymentRow[]): Promise<void> {
  return sql.append('invoice_payments', INVOICE_PAYMENT_COLUMNS, rows);
}

/** The invoices the programs' payment intents or charges (`refs`) paid. */
export function findInvoicePayments(sql: Sql, programIds: number[], refs: string[]): Promise<InvoicePaymentRow[]> {
  if (refs.length === 0) return Promise.resolve([]);
  return sql.all<InvoicePaymentRow>(
    `SELECT program_id, invoice_id, payment_intent_id, charge_id, created_at FROM invoice_payments
     WHERE program_id = ANY($1::BIGINT[]) AND (payment_intent_id = ANY($2::VARCHAR[]) OR charge_id = ANY($2::VARCHAR[]))
     ORDER BY created_at`,
    [list(programIds), list(refs)],
  );
}

/** A commission with the status it reads as at the instant asked (docs/refunds-and-payouts.md#the-status-a-commission-reads-as). */
export type SaleCommission = CommissionRow & { sale_id: number; read_status: CommissionStatus };

/** Every commission of the sales, clawbacks included, oldest first, with its status as read at `now`. */
export function findSaleCommissions(sql: Sql, saleIds: number[], now: Date): Promise<SaleCommission[]> {
  if (saleIds.length === 0) return Promise.resolve([]);
  return sql.all<SaleCommission>(
    `SELECT c.id, c.program_id, c.sale_id, c.partner_program_id, c.amount_cents, c.currency, c.status, c.hold_until, c.created_at, c.type,
       c.payout_id, c.paid_at, c.reason, c.percent_bp, ${statusAt('$2')} AS read_status
     FROM commissions c JOIN programs p ON p.id = c.program_id WHERE c.sale_id = ANY($1::BIGINT[]) ORDER BY c.id`,
    [list(saleIds), now],
  );
}

export type CommissionChange = { id: number; amount_cents: number; status: CommissionStatus };

/** New amounts and statuses of commissions, in one statement. */
export async function updateCommissions(sql: Sql, changes: CommissionChange[]): Promise<void> {
  if (changes.length === 0) return;
  await sql.write(
    {
      table: 'commissions', set: 'amount_cents = u.amount_cents, status = u.status',
      from: '(SELECT unnest($1::BIGINT[]) AS id, unnest($2::BIGINT[]) AS amount_cents, unnest($3::VARCHAR[]) AS status) u',
      where: 'commissions.id = u.id',
    },
    [list(changes.map((c) => c.id)), list(changes.map((c) => c.amount_cents)), list(changes.map((c) => c.status))],
  );
}
