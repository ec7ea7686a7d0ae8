import { list, type Columns, type Sql } from './db.js';

/** A program's promotion code (docs/promotion-codes.md#codes); `code_key` is programKey(program, lower-cased code). */
export type PromotionCodeRow = {
  id: number;
  code_key: string;
  program_id: number;
  partner_program_id: number;
  code: string;
  stripe_promotion_code: string | null;
  created_at: Date;
  removed_at: Date | null;
};

/** A code with its enrollment's partner and status, as attribution and the API read it. */
export type EnrolledCode = PromotionCodeRow & { partner_id: number; partner_name: string; enrollment_status: 'active' | 'inactive'; group_id: number | null };

/** A sale a code attributed (docs/promotion-codes.md#in-the-per-partner-report). */
export type CodeSaleRow = { sale_id: number; program_id: number; partner_program_id: number; promotion_code_id: number; paid_at: Date };

const ENROLLED = `SELECT c.*, pp.partner_id, pa.name AS partner_name, pp.status AS enrollment_status, pp.group_id
  FROM promotion_codes c JOIN partner_programs pp ON pp.id = c.partner_program_id JOIN partners pa ON pa.id = pp.partner_id`;

export async function insertCode(sql: Sql, row: PromotionCodeRow): Promise<void> {
  await sql.run(
    `INSERT INTO promotion_codes (id, code_key, program_id, partner_program_id, code, stripe_promotion_code, created_at, removed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [row.id, row.code_key, row.program_id, row.partner_program_id, row.code, row.stripe_promotion_code, row.created_at, row.removed_at],
  );
}

/** Codes by key, removed ones included: one round trip for a batch of sales. */
export function findCodesByKeys(sql: Sql, keys: string[]): Promise<EnrolledCode[]> {
  if (keys.length === 0) return Promise.resolve([]);
  return sql.all<EnrolledCode>(`${ENROLLED} WHERE c.code_key = ANY($1::VARCHAR[])`, [list(keys)]);
}

/** The program's codes naming these Stripe promotion codes, removed ones included. */
export function findCodesByStripeIds(sql: Sql, programIds: number[], stripeIds: string[]): Promise<EnrolledCode[]> {
  if (stripeIds.length === 0) return Promise.resolve([]);
  return sql.all<EnrolledCode>(`${ENROLLED} WHERE c.program_id = ANY($1::BIGINT[]) AND c.stripe_promotion_code = ANY($2::VARCHAR[])`, [
    list(programIds), list(stripeIds),
  ]);
}

/** The program's codes that are not removed, optionally of one partner, by code. */
export function listCodes(sql: Sql, programId: number, partnerId: number | null): Promise<EnrolledCode[]> {
  return sql.all<EnrolledCode>(
    `${ENROLLED} WHERE c.program_id = $1 AND c.removed_at IS NULL AND ($2::BIGINT IS NULL OR pp.partner_id = $2) ORDER BY lower(c.code), c.id`,
    [programId, partnerId],
  );
}

export async function markRemoved(sql: Sql, id: number, at: Date): Promise<void> {
  await sql.run('UPDATE promotion_codes SET removed_at = $2 WHERE id = $1', [id, at]);
}

const CODE_SALE_COLUMNS: Columns<CodeSaleRow> = [
  ['sale_id', 'BIGINT'], ['program_id', 'BIGINT'], ['partner_program_id', 'BIGINT'], ['promotion_code_id', 'BIGINT'], ['paid_at', 'TIMESTAMP'],
];

export function appendCodeSales(sql: Sql, rows: CodeSaleRow[]): Promise<void> {
  return sql.append('code_sales', CODE_SALE_COLUMNS, rows);
}

/** How many sales codes attributed per partner of the program, dated in [from, to]. */
export async function codeSalesByPartner(sql: Sql, programId: number, from: Date, to: Date): Promise<Map<number, number>> {
  const rows = await sql.all<{ partner_id: number; sales: number }>(
    `SELECT pp.partner_id, count(*) AS sales FROM code_sales s JOIN partner_programs pp ON pp.id = s.partner_program_id
     WHERE s.program_id = $1 AND s.paid_at BETWEEN $2 AND $3 GROUP BY pp.partner_id`,
    [programId, from, to],
  );
  return new Map(rows.map((r) => [r.partner_id, r.sales]));
}
