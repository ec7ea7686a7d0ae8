import { list, type Columns, type Sql } from './db.js';

/** A rule that fired on a commission (docs/fraud.md#fraud-events); `evidence` is JSON. */
export type FraudEventRow = {
  id: number;
  program_id: number;
  commission_id: number;
  sale_id: number;
  partner_program_id: number;
  rule: string;
  action: 'flag' | 'hold';
  evidence: string;
  created_at: Date;
};

const COLUMNS: Columns<FraudEventRow> = [
  ['id', 'BIGINT'], ['program_id', 'BIGINT'], ['commission_id', 'BIGINT'], ['sale_id', 'BIGINT'], ['partner_program_id', 'BIGINT'], ['rule', 'VARCHAR'],
  ['action', 'VARCHAR'], ['evidence', 'VARCHAR'], ['created_at', 'TIMESTAMP'],
];

export function appendFraudEvents(sql: Sql, rows: FraudEventRow[]): Promise<void> {
  return sql.append('fraud_events', COLUMNS, rows);
}

/** A fraud event with its partner and its commission as stored now. */
export type FraudEventView = FraudEventRow & {
  partner_id: number;
  partner_name: string;
  commission_status: string;
  amount_cents: number;
  currency: string;
};

/**
 * The program's fraud events, newest first: those of held commissions (`heldOnly`), or all. A held
 * commission's stored status is `on_hold`: no reading of the hold date changes it.
 */
export function listFraudEvents(sql: Sql, programId: number, heldOnly: boolean): Promise<FraudEventView[]> {
  return sql.all<FraudEventView>(
    `SELECT f.*, pp.partner_id, pa.name AS partner_name, c.status AS commission_status, c.amount_cents, c.currency
     FROM fraud_events f JOIN commissions c ON c.id = f.commission_id JOIN partner_programs pp ON pp.id = f.partner_program_id
     JOIN partners pa ON pa.id = pp.partner_id
     WHERE f.program_id = $1 AND (NOT $2 OR c.status = 'on_hold') ORDER BY f.id DESC`,
    [programId, heldOnly],
  );
}

/** Each enrollment's live sales received since `since`, and how many of them have a refund. */
export type RefundRateRow = { partner_program_id: number; sales: number; refunded: number };

export function refundRates(sql: Sql, enrollmentIds: number[], since: Date): Promise<RefundRateRow[]> {
  return sql.all<RefundRateRow>(
    `SELECT s.partner_program_id, count(*) AS sales, count(r.sale_id) AS refunded
     FROM sale_events s
     LEFT JOIN (SELECT DISTINCT sale_id FROM refunds WHERE partner_program_id = ANY($1::BIGINT[]) AND mode = 'live') r ON r.sale_id = s.id
     WHERE s.partner_program_id = ANY($1::BIGINT[]) AND s.received_at >= $2
     GROUP BY s.partner_program_id`,
    [list(enrollmentIds), since],
  );
}
