import { list, type Params, type Sql } from './db.js';

export type PayoutStatus = 'processing' | 'paid' | 'canceled';

/** A payout with the ids of the commissions it took (still held, or given back by a cancel). */
export type PayoutRow = {
  id: number;
  batch_id: number;
  program_id: number;
  partner_id: number;
  currency: string;
  /** A sum of commissions: HUGEINT, so a bigint (docs/reports.md#rounding). */
  amount_cents: bigint;
  status: PayoutStatus;
  created_at: Date;
  paid_at: Date | null;
  commission_ids: number[];
};

async function payouts(sql: Sql, where: string, params: Params): Promise<PayoutRow[]> {
  const rows = await sql.all<Omit<PayoutRow, 'commission_ids'> & { commission_ids: bigint[] }>(`SELECT * FROM payouts WHERE ${where} ORDER BY id`, params);
  return rows.map((r) => ({ ...r, commission_ids: r.commission_ids.map(Number) }));
}

export async function findPayout(sql: Sql, id: number): Promise<PayoutRow | undefined> {
  return (await payouts(sql, 'id = $1', [id]))[0];
}

export function batchPayouts(sql: Sql, batchId: number): Promise<PayoutRow[]> {
  return payouts(sql, 'batch_id = $1', [batchId]);
}

/** A program's payouts, by id, optionally of one status and one partner. */
export function programPayouts(sql: Sql, programId: number, filter: { status?: PayoutStatus; partnerId?: number }): Promise<PayoutRow[]> {
  return payouts(sql, 'program_id = $1 AND ($2::VARCHAR IS NULL OR status = $2) AND ($3::BIGINT IS NULL OR partner_id = $3)', [
    programId, filter.status ?? null, filter.partnerId ?? null,
  ]);
}

/** The program a batch belongs to, or undefined for an unknown batch. */
export async function findBatchProgram(sql: Sql, batchId: number): Promise<number | undefined> {
  return (await sql.one<{ program_id: number }>('SELECT program_id FROM payout_batches WHERE id = $1', [batchId]))?.program_id;
}

/**
 * Records a batch and its payouts from the commissions takeIntoPayouts just gave them (payout ids
 * `first` … `last`): each payout's amount is the sum of its commissions, whose ids it keeps.
 */
export async function insertBatch(sql: Sql, batch: { id: number; programId: number; createdAt: Date }, first: number, last: number): Promise<void> {
  await sql.run('INSERT INTO payout_batches (id, program_id, created_at) VALUES ($1, $2, $3)', [batch.id, batch.programId, batch.createdAt]);
  await sql.run(
    `INSERT INTO payouts (id, batch_id, program_id, partner_id, currency, amount_cents, commission_ids, status, created_at, paid_at)
     SELECT c.payout_id, $2, c.program_id, pp.partner_id, c.currency, sum(c.amount_cents), array_agg(c.id ORDER BY c.id), 'processing', $3, NULL
     FROM commissions c JOIN partner_programs pp ON pp.id = c.partner_program_id
     WHERE c.program_id = $1 AND c.payout_id BETWEEN $4 AND $5
     GROUP BY c.payout_id, c.program_id, pp.partner_id, c.currency`,
    [batch.programId, batch.id, batch.createdAt, first, last],
  );
}

/** Processing payouts of `ids` become paid at `at`, and so do the commissions they hold. */
export async function markPaid(sql: Sql, ids: number[], at: Date): Promise<void> {
  await sql.run("UPDATE payouts SET status = 'paid', paid_at = $2 WHERE id = ANY($1::BIGINT[]) AND status = 'processing'", [list(ids), at]);
  await sql.write({ table: 'commissions', set: "status = 'paid', paid_at = $2", where: "payout_id = ANY($1::BIGINT[]) AND status = 'processing'" }, [list(ids), at]);
}

/** Processing payouts of `ids` are canceled; the commissions they hold are approved again and held by no payout. */
export async function cancel(sql: Sql, ids: number[]): Promise<void> {
  await sql.run("UPDATE payouts SET status = 'canceled' WHERE id = ANY($1::BIGINT[]) AND status = 'processing'", [list(ids)]);
  await sql.write({ table: 'commissions', set: "status = 'approved', payout_id = NULL", where: "payout_id = ANY($1::BIGINT[]) AND status = 'processing'" }, [list(ids)]);
}
