import type { DataFormat, ExportTable } from '../api/constants.js';
import type { Params, Store } from './db.js';
import { COMMISSIONS, statusAt } from './commissions.js';

/** Which of a program's rows an export writes (docs/behaviour.md §14.8). */
export type ExportFilter = {
  programId: number;
  /** Rows whose time (the table's own, see TABLES) is in [from, to]; null leaves that side open. */
  from: Date | null;
  to: Date | null;
  includeTest: boolean;
  /** The instant commission statuses are read at. */
  now: Date;
};

/**
 * A stored UTC instant as TIMESTAMPTZ: Parquet marks the column UTC, and CSV and JSON write it as
 * ISO 8601 with a Z. Built from its microseconds, which takes no time zone lookup: `timezone('UTC', …)`
 * or a cast cost 25 times as much, a quarter of a ten-million-click export (docs/architecture.md §17).
 */
const instant = (column: string, name: string) => `make_timestamptz(epoch_us(${column})) AS ${name}`;
/** Cents as stored, and the same amount in currency units: an exact DECIMAL, never a float. */
const money = (column: string, name: string) => `${column} AS ${name}_cents, ${column}::DECIMAL(38,0) * 0.01 AS ${name}`;
const partner = 'pp.partner_id, pa.name AS partner_name, pp.ref_code';
const PARTNERS = 'partner_programs pp JOIN partners pa ON pa.id = pp.partner_id';

/**
 * The conditions of one table of a SELECT: alias `alias` of the program's rows whose `time` is in
 * the range, without test rows (those where `test` holds) unless they were asked for.
 */
type Where = (alias: string, time: string, test?: string) => string;

/**
 * A table's export: the SELECT of its rows (live and, for the tables that keep them, test rows).
 * `now` is the parameter the commission statuses are read at. No column holds a secret or a
 * visitor's hash (docs/behaviour.md §14.8).
 */
type TableExport = (where: Where, now: () => string) => string;

const TABLES: Record<ExportTable, TableExport> = {
  // Millions of rows, sorted by id: the partner's name and code in every row would make the sort
  // carry them too, a quarter of the export (docs/architecture.md §17); the id joins them.
  clicks: (where) => `
    SELECT c.id, c.click_id, pp.partner_id, c.landing_url, c.referrer, c.is_test, ${instant('c.created_at', 'created_at')}
    FROM clicks c JOIN partner_programs pp ON pp.id = c.partner_program_id
    WHERE ${where('c', 'c.created_at', 'c.is_test')}`,
  customers: (where) => `
    SELECT cu.id, cu.customer_key, cu.email, cu.name, ${partner}, cu.click_ref AS click_id, cu.provider_customer_id, cu.status,
      ${instant('cu.signup_date', 'signup_at')}, ${instant('cu.first_purchase_date', 'first_purchase_at')}
    FROM customers cu JOIN ${PARTNERS} ON pp.id = cu.partner_program_id
    WHERE ${where('cu', 'cu.signup_date')}`,
  // Test sales are kept apart, with ids of their own: (id, is_test) names a sale.
  sales: (where) => `
    SELECT s.id, false AS is_test, ${partner}, s.customer_id, cu.customer_key, s.transaction_id, ${money('s.amount_cents', 'amount')},
      ${money('s.tax_cents', 'tax')}, s.currency, s.sale_type, s.is_recurring, s.subscription_id, s.subscription_interval, s.product_id,
      s.provider, s.provider_payment_id, s.source, ${instant('s.occurred_at', 'occurred_at')}, ${instant('s.received_at', 'received_at')}
    FROM sale_events s JOIN ${PARTNERS} ON pp.id = s.partner_program_id JOIN customers cu ON cu.id = s.customer_id
    WHERE ${where('s', 'coalesce(s.occurred_at, s.received_at)')}
    UNION ALL
    SELECT t.id, true, NULL, NULL, NULL, NULL, t.customer_key, t.transaction_id, ${money('t.amount_cents', 'amount')}, NULL, NULL,
      t.currency, NULL, NULL, NULL, NULL, NULL, NULL, t.provider_payment_id, NULL, NULL, ${instant('t.received_at', 'received_at')}
    FROM test_sale_events t
    WHERE ${where('t', 't.received_at', 'true')}`,
  commissions: (where, now) => `
    SELECT c.id, c.sale_id, ${partner}, c.type, ${money('c.amount_cents', 'amount')}, c.currency, c.percent_bp, ${statusAt(now())} AS status,
      c.reason, c.payout_id, ${instant('c.created_at', 'created_at')}, ${instant('c.hold_until', 'hold_until')}, ${instant('c.paid_at', 'paid_at')}
    FROM ${COMMISSIONS} JOIN partners pa ON pa.id = pp.partner_id
    WHERE ${where('c', 'c.created_at')}`,
  refunds: (where) => `
    SELECT r.id, r.refund_id, r.mode = 'test' AS is_test, r.sale_id, ${partner}, ${money('r.amount_cents', 'amount')}, r.currency, r.reason,
      r.source, r.completes_sale, ${instant('r.received_at', 'received_at')}
    FROM refunds r LEFT JOIN ${PARTNERS} ON pp.id = r.partner_program_id
    WHERE ${where('r', 'r.received_at', "r.mode = 'test'")}`,
  payouts: (where) => `
    SELECT po.id, po.batch_id, po.partner_id, pa.name AS partner_name, po.currency, ${money('po.amount_cents::DECIMAL(38,0)', 'amount')},
      len(po.commission_ids) AS commission_count, po.status, ${instant('po.created_at', 'created_at')}, ${instant('po.paid_at', 'paid_at')}
    FROM payouts po JOIN partners pa ON pa.id = po.partner_id
    WHERE ${where('po', 'po.created_at')}`,
};

/** Every row in id order; the test sales after the live ones. */
const ORDER: Record<ExportTable, string> = {
  clicks: 'id', customers: 'id', sales: 'is_test, id', commissions: 'id', refunds: 'id', payouts: 'id',
};

const ISO_INSTANT = "TIMESTAMPFORMAT '%Y-%m-%dT%H:%M:%S.%gZ'";
const COPY_OPTIONS: Record<DataFormat, string> = {
  csv: `FORMAT csv, HEADER true, ${ISO_INSTANT}`,
  json: `FORMAT json, ARRAY true, ${ISO_INSTANT}`,
  parquet: 'FORMAT parquet',
};

/** The SELECT of a table's rows under the filter, in order, and its parameters. */
export function exportSelect(table: ExportTable, filter: ExportFilter): { select: string; params: Params } {
  const params: Params = [filter.programId];
  const param = (value: Date) => `$${params.push(value)}`;
  const from = filter.from && param(filter.from);
  const to = filter.to && param(filter.to);
  const where: Where = (alias, time, test) => {
    const conditions = [`${alias}.program_id = $1`];
    if (from) conditions.push(`${time} >= ${from}`);
    if (to) conditions.push(`${time} <= ${to}`);
    if (test && !filter.includeTest) conditions.push(`NOT ${test}`);
    return conditions.join(' AND ');
  };
  return { select: `${TABLES[table](where, () => param(filter.now))} ORDER BY ${ORDER[table]}`, params };
}

/** Writes a table's rows under the filter to `path` in `format`; answers the number of rows. */
export function copyTable(store: Store, table: ExportTable, filter: ExportFilter, format: DataFormat, path: string, onProgress?: (fraction: number) => void): Promise<number> {
  const { select, params } = exportSelect(table, filter);
  if (store.engine === 'postgres') throw new Error('exports from PostgreSQL are not built yet');
  return store.copyTo(select, params, path, COPY_OPTIONS[format], onProgress);
}
