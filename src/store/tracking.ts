import type { Sql } from './db.js';

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
  partner_program_id: number;
  provider_customer_id: string | null;
  signup_date: Date;
  first_purchase_date: Date | null;
  status: 'lead' | 'conversion';
};

export async function insertClick(sql: Sql, c: ClickRow): Promise<void> {
  await sql.run(
    `INSERT INTO clicks (id, click_id, program_id, partner_program_id, landing_url, referrer, is_test, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [c.id, c.click_id, c.program_id, c.partner_program_id, c.landing_url, c.referrer, c.is_test, c.created_at],
  );
}

/** Click ids embed their row id (ck_<id>_<secret>), so the lookup is a zone-map seek, not a scan. */
export function findClick(sql: Sql, rowId: number, clickId: string): Promise<ClickRow | undefined> {
  return sql.one<ClickRow>('SELECT * FROM clicks WHERE id = $1 AND click_id = $2', [rowId, clickId]);
}

export async function insertCustomer(sql: Sql, c: CustomerRow): Promise<void> {
  await sql.run(
    `INSERT INTO customers (id, program_id, customer_key, email, name, click_id, partner_program_id,
       provider_customer_id, signup_date, first_purchase_date, status)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [c.id, c.program_id, c.customer_key, c.email, c.name, c.click_id, c.partner_program_id,
      c.provider_customer_id, c.signup_date, c.first_purchase_date, c.status],
  );
}

export function findCustomerByKey(sql: Sql, programId: number, customerKey: string): Promise<CustomerRow | undefined> {
  return sql.one<CustomerRow>('SELECT * FROM customers WHERE program_id = $1 AND customer_key = $2', [programId, customerKey]);
}

export function findCustomerByClick(sql: Sql, programId: number, clickRowId: number): Promise<CustomerRow | undefined> {
  return sql.one<CustomerRow>(
    'SELECT * FROM customers WHERE program_id = $1 AND click_id = $2 ORDER BY id LIMIT 1',
    [programId, clickRowId],
  );
}

export async function clickTime(sql: Sql, clickRowId: number): Promise<Date | undefined> {
  return (await sql.one<{ created_at: Date }>('SELECT created_at FROM clicks WHERE id = $1', [clickRowId]))?.created_at;
}

export async function markConverted(sql: Sql, customerId: number, at: Date): Promise<void> {
  await sql.run(
    "UPDATE customers SET status = 'conversion', first_purchase_date = $2 WHERE id = $1 AND status = 'lead'",
    [customerId, at],
  );
}
