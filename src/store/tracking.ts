import type { DuckDBValue } from '@duckdb/node-api';
import { list, utcDay, type Sql } from './db.js';

export type ClickRow = {
  id: number;
  click_id: string;
  program_id: number;
  partner_program_id: number;
  landing_url: string | null;
  referrer: string | null;
  is_test: boolean;
  created_at: Date;
};

export type CustomerRow = {
  id: number;
  program_id: number;
  customer_key: string;
  email: string | null;
  name: string | null;
  click_id: number | null;
  /** The click's click_id value (migration 004). */
  click_ref: string | null;
  partner_program_id: number;
  provider_customer_id: string | null;
  signup_date: Date;
  /** When the attribution window starts: the click's time, or the signup's without a click. */
  attributed_from: Date;
  first_purchase_date: Date | null;
  status: 'lead' | 'conversion';
};

/** A test click gets no report day (migration 003): reports never count it. */
export async function insertClick(sql: Sql, c: ClickRow): Promise<void> {
  await sql.run(
    `INSERT INTO clicks (id, click_id, program_id, partner_program_id, landing_url, referrer, is_test, created_at, day)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::DATE)`,
    [c.id, c.click_id, c.program_id, c.partner_program_id, c.landing_url, c.referrer, c.is_test, c.created_at, c.is_test ? null : utcDay(c.created_at)],
  );
}

/** Click ids embed their row id (ck_<id>_<secret>), so the lookup is a zone-map seek, not a scan. */
export function findClick(sql: Sql, rowId: number, clickId: string): Promise<ClickRow | undefined> {
  return sql.one<ClickRow>('SELECT * FROM clicks WHERE id = $1 AND click_id = $2', [rowId, clickId]);
}

/** A value within a program as one string: the customers' unique key, and the key of lookups by program in memory. */
export function inProgram(programId: number, value: string | number): string {
  return `${programId}:${value}`;
}

/** The customers' unique key: one column, so DuckDB finds it through its index. */
export function customerRef(programId: number, customerKey: string): string {
  return inProgram(programId, customerKey);
}

export async function insertCustomer(sql: Sql, c: CustomerRow): Promise<void> {
  await sql.run(
    `INSERT INTO customers (id, customer_ref, program_id, customer_key, email, name, click_id, partner_program_id,
       provider_customer_id, signup_date, attributed_from, first_purchase_date, status, signup_day, first_purchase_day, click_ref)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::DATE, $15::DATE, $16)`,
    [c.id, customerRef(c.program_id, c.customer_key), c.program_id, c.customer_key, c.email, c.name, c.click_id,
      c.partner_program_id, c.provider_customer_id, c.signup_date, c.attributed_from, c.first_purchase_date, c.status,
      utcDay(c.signup_date), c.first_purchase_date && utcDay(c.first_purchase_date), c.click_ref],
  );
}

export function findCustomerByKey(sql: Sql, programId: number, customerKey: string): Promise<CustomerRow | undefined> {
  return sql.one<CustomerRow>('SELECT * FROM customers WHERE customer_ref = $1', [customerRef(programId, customerKey)]);
}

/** What attributing a sale reads of a customer, with the status of its partner's enrollment. */
export type AttributableCustomer = Pick<
  CustomerRow,
  'id' | 'program_id' | 'customer_key' | 'click_id' | 'click_ref' | 'partner_program_id' | 'provider_customer_id' | 'attributed_from' | 'status'
> & {
  enrollment_status: 'active' | 'inactive' | null;
};

/**
 * Only the columns attribution reads, of customers `cu` joined to their enrollment (matched):
 * on the sale path every column fetched costs (a fifth of this query for cu.*).
 */
const ATTRIBUTABLE_COLUMNS = `cu.id, cu.program_id, cu.customer_key, cu.click_id, cu.click_ref, cu.partner_program_id, cu.provider_customer_id,
  cu.attributed_from, cu.status, pp.status AS enrollment_status`;

/** Customers by inProgram(program, the value each matched). */
export type Matches = Map<string, AttributableCustomer>;

/** Attributable customers (cu) with the value each matched as `match`; `from` may join cu to another table first. */
export const matched = (match: string, from = 'customers cu') =>
  `SELECT ${ATTRIBUTABLE_COLUMNS}, ${match} AS match FROM ${from} LEFT JOIN partner_programs pp ON pp.id = cu.partner_program_id`;

/**
 * The first row of each (program_id, match) in the query's order: one round trip for a batch.
 * (Ordered rows and a first-per-key pass here: a window function (QUALIFY) cost 4× the scan.)
 */
export async function firstMatches(sql: Sql, query: string, params: DuckDBValue[]): Promise<Matches> {
  const found: Matches = new Map();
  for (const { match, ...customer } of await sql.all<AttributableCustomer & { match: string | number }>(query, params)) {
    const key = inProgram(customer.program_id, match);
    if (!found.has(key)) found.set(key, customer);
  }
  return found;
}

export const noMatches: Promise<Matches> = Promise.resolve(new Map());

/** Customers by (program, key) pairs through the unique customer_ref, keyed by it. */
export function findCustomersByKeys(sql: Sql, keys: Array<{ programId: number; customerKey: string }>): Promise<Matches> {
  if (keys.length === 0) return noMatches;
  return firstMatches(sql, `${matched('cu.customer_key')} WHERE cu.customer_ref = ANY($1::VARCHAR[])`, [
    list(keys.map((k) => customerRef(k.programId, k.customerKey))),
  ]);
}

/** The earliest customer of each given click (clicks.id), keyed by inProgram(program, clicks.id). */
export function findCustomersByClicks(sql: Sql, clickRowIds: number[]): Promise<Matches> {
  if (clickRowIds.length === 0) return noMatches;
  return firstMatches(sql, `${matched('cu.click_id')} WHERE cu.click_id = ANY($1::BIGINT[]) ORDER BY cu.id`, [list(clickRowIds)]);
}

export async function markConverted(sql: Sql, customerIds: number[], at: Date): Promise<void> {
  if (customerIds.length === 0) return;
  await sql.run(
    "UPDATE customers SET status = 'conversion', first_purchase_date = $2, first_purchase_day = $3::DATE WHERE id = ANY($1::BIGINT[]) AND status = 'lead'",
    [list(customerIds), at, utcDay(at)],
  );
}
