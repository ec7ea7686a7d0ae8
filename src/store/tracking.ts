import { dayValue, list, type Columns, type Params, type Sql } from './db.js';
import { programKey } from './program-key.js';

export type ClickRow = {
  id: number;
  click_id: string;
  program_id: number;
  partner_program_id: number;
  landing_url: string | null;
  referrer: string | null;
  is_test: boolean;
  created_at: Date;
  /** The visitor's salted hash (docs/tracking.md#unique-clicks); null for test clicks and clicks without a visitor. */
  visitor_hash: number | null;
};

export type CustomerRow = {
  id: number;
  program_id: number;
  customer_key: string;
  email: string | null;
  name: string | null;
  click_id: number | null;
  /** The click's click_id value. */
  click_ref: string | null;
  partner_program_id: number;
  provider_customer_id: string | null;
  signup_date: Date;
  /** When the attribution window starts: the click's time, or the signup's without a click. */
  attributed_from: Date;
  first_purchase_date: Date | null;
  status: 'lead' | 'conversion';
};

const CLICK_COLUMNS: Columns<ClickRow & { day: Date | null }> = [
  ['id', 'BIGINT'], ['click_id', 'VARCHAR'], ['program_id', 'BIGINT'], ['partner_program_id', 'BIGINT'], ['landing_url', 'VARCHAR'],
  ['referrer', 'VARCHAR'], ['is_test', 'BOOLEAN'], ['created_at', 'TIMESTAMP'], ['day', 'DATE'], ['visitor_hash', 'BIGINT'],
];

/** A test click gets no report day: reports select clicks by day alone and never count it. */
export function appendClicks(sql: Sql, rows: ClickRow[]): Promise<void> {
  return sql.append('clicks', CLICK_COLUMNS, rows.map((c) => ({ ...c, day: c.is_test ? null : c.created_at })));
}

/** When the latest click with a visitor was stored, or null: what the unique-click check may still have to read. */
export async function latestVisitorClickAt(sql: Sql): Promise<Date | null> {
  return (await sql.one<{ at: Date | null }>('SELECT max(created_at) AS at FROM clicks WHERE visitor_hash IS NOT NULL'))!.at;
}

export type VisitorClick = Pick<ClickRow, 'id' | 'click_id' | 'partner_program_id' | 'visitor_hash'>;

/** The key class of the visitors' transaction locks. */
const VISITOR_LOCKS = 7_146;

/**
 * Locks each visitor until the transaction ends, in key order so that two batches locking the same
 * visitors never deadlock: another instance deciding a visitor's click waits for this one to commit,
 * and its lookup, at READ COMMITTED, then sees this click (docs/store-engines.md#what-a-process-may-remember). DuckDB's one
 * writer needs no lock.
 */
export async function lockVisitors(sql: Sql, hashes: number[]): Promise<void> {
  await sql.lockKeys(VISITOR_LOCKS, hashes);
}

/**
 * The clicks of some visitors stored after `after` with a row id below `beforeId`, oldest first.
 * Clicks are stored in time and id order, so both bounds are zone-map ranges: only the row groups
 * of the window are read.
 */
export function findVisitorClicks(sql: Sql, hashes: number[], after: Date, beforeId: number): Promise<VisitorClick[]> {
  return sql.all<VisitorClick>(
    'SELECT id, click_id, partner_program_id, visitor_hash FROM clicks WHERE created_at > $1 AND id < $2 AND visitor_hash = ANY($3::BIGINT[]) ORDER BY id',
    [after, beforeId, list(hashes)],
  );
}

/** Clicks by row id (click ids embed it, ck_<id>_<secret>: a zone-map seek, not a scan). */
export function findClicks(sql: Sql, rowIds: number[]): Promise<ClickRow[]> {
  if (rowIds.length === 0) return Promise.resolve([]);
  return sql.all<ClickRow>('SELECT * FROM clicks WHERE id = ANY($1::BIGINT[])', [list(rowIds)]);
}

const CUSTOMER_COLUMNS: Columns<CustomerRow & { customer_ref: string; signup_day: Date; first_purchase_day: Date | null }> = [
  ['id', 'BIGINT'], ['customer_ref', 'VARCHAR'], ['program_id', 'BIGINT'], ['customer_key', 'VARCHAR'], ['email', 'VARCHAR'], ['name', 'VARCHAR'],
  ['click_id', 'BIGINT'], ['partner_program_id', 'BIGINT'], ['provider_customer_id', 'VARCHAR'], ['signup_date', 'TIMESTAMP'],
  ['attributed_from', 'TIMESTAMP'], ['first_purchase_date', 'TIMESTAMP'], ['status', 'VARCHAR'], ['signup_day', 'DATE'],
  ['first_purchase_day', 'DATE'], ['click_ref', 'VARCHAR'],
];

/** A customer already stored under a row's (program, customer_key) fails the append (the unique customer_ref). */
export function appendCustomers(sql: Sql, rows: CustomerRow[]): Promise<void> {
  return sql.append('customers', CUSTOMER_COLUMNS, rows.map((c) => ({
    ...c, customer_ref: programKey(c.program_id, c.customer_key), signup_day: c.signup_date, first_purchase_day: c.first_purchase_date,
  })));
}

/** What attributing a sale reads of a customer, with the status of its partner's enrollment. */
export type AttributableCustomer = Pick<
  CustomerRow,
  'id' | 'program_id' | 'customer_key' | 'email' | 'click_id' | 'click_ref' | 'partner_program_id' | 'provider_customer_id' | 'attributed_from' | 'status'
> & {
  enrollment_status: 'active' | 'inactive' | null;
  /** The enrollment's partner; null when the enrollment is gone. */
  partner_id: number | null;
  /** The partner's e-mail, for the fraud rule self_referral (docs/fraud.md#rules-on-the-write-path). */
  partner_email: string | null;
  /** The enrollment's group; null: the program's default (docs/groups.md#which-group-a-partner-is-in). */
  group_id: number | null;
};

/**
 * Only the columns attribution reads, of customers `cu` joined to their enrollment (matched):
 * on the sale path every column fetched costs (a fifth of this query for cu.*).
 */
const ATTRIBUTABLE_COLUMNS = `cu.id, cu.program_id, cu.customer_key, cu.email, cu.click_id, cu.click_ref, cu.partner_program_id, cu.provider_customer_id,
  cu.attributed_from, cu.status, pp.status AS enrollment_status, pp.partner_id, pa.email AS partner_email, pp.group_id`;

/** Customers by programKey(program, the value each matched). */
export type Matches = Map<string, AttributableCustomer>;

/** Attributable customers (cu) with the value each matched as `match`; `from` may join cu to another table first. */
export const matched = (match: string, from = 'customers cu') =>
  `SELECT ${ATTRIBUTABLE_COLUMNS}, ${match} AS match FROM ${from} LEFT JOIN partner_programs pp ON pp.id = cu.partner_program_id
   LEFT JOIN partners pa ON pa.id = pp.partner_id`;

/**
 * The first row of each (program_id, match) in the query's order: one round trip for a batch.
 * (Ordered rows and a first-per-key pass here: a window function (QUALIFY) cost 4× the scan.)
 */
export async function firstMatches(sql: Sql, query: string, params: Params): Promise<Matches> {
  const found: Matches = new Map();
  for (const { match, ...customer } of await sql.all<AttributableCustomer & { match: string | number }>(query, params)) {
    const key = programKey(customer.program_id, match);
    if (!found.has(key)) found.set(key, customer);
  }
  return found;
}

export const noMatches: Promise<Matches> = Promise.resolve(new Map());

/** Customers by (program, key) pairs through the unique customer_ref, keyed by it. */
export function findCustomersByKeys(sql: Sql, keys: Array<{ programId: number; customerKey: string }>): Promise<Matches> {
  if (keys.length === 0) return noMatches;
  return firstMatches(sql, `${matched('cu.customer_key')} WHERE cu.customer_ref = ANY($1::VARCHAR[])`, [
    list(keys.map((k) => programKey(k.programId, k.customerKey))),
  ]);
}

/** The earliest customer of each given click (clicks.id), keyed by programKey(program, clicks.id). */
export function findCustomersByClicks(sql: Sql, clickRowIds: number[]): Promise<Matches> {
  if (clickRowIds.length === 0) return noMatches;
  return firstMatches(sql, `${matched('cu.click_id')} WHERE cu.click_id = ANY($1::BIGINT[]) ORDER BY cu.id`, [list(clickRowIds)]);
}

export async function markConverted(sql: Sql, customerIds: number[], at: Date): Promise<void> {
  if (customerIds.length === 0) return;
  await sql.write(
    { table: 'customers', set: "status = 'conversion', first_purchase_date = $2, first_purchase_day = $3", where: "id = ANY($1::BIGINT[]) AND status = 'lead'" },
    [list(customerIds), at, dayValue(at)],
  );
}
