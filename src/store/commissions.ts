import { list, type Params, type Sql } from './db.js';
import type { CommissionStatus } from './sales.js';

/**
 * Every read of commissions joins their program (`p`, for its approval mode) and enrollment (`pp`,
 * for the partner). `statusAt` is the one definition of the status a commission reads as.
 */
export const COMMISSIONS = 'commissions c JOIN programs p ON p.id = c.program_id JOIN partner_programs pp ON pp.id = c.partner_program_id';

/**
 * The status of commission `c` of program `p` at the instant in the parameter `now`
 * (docs/refunds-and-payouts.md#the-status-a-commission-reads-as): under automatic approval a pending commission is approved from its
 * `hold_until` on, with no job run; otherwise the stored status. Every read and every write that
 * decides by status uses this expression.
 */
export function statusAt(now: string): string {
  return `(CASE WHEN c.status = 'pending' AND p.approval = 'auto' AND c.hold_until <= ${now} THEN 'approved' ELSE c.status END)`;
}

/** A commission as read at an instant: its status is the one of statusAt, and its partner is the enrollment's. */
export type CommissionView = {
  id: number;
  program_id: number;
  partner_id: number;
  sale_id: number;
  type: 'sale' | 'clawback';
  amount_cents: number;
  currency: string;
  status: CommissionStatus;
  hold_until: Date;
  created_at: Date;
  payout_id: number | null;
  paid_at: Date | null;
  reason: string | null;
};

const VIEW_COLUMNS = `c.id, c.program_id, pp.partner_id, c.sale_id, c.type, c.amount_cents, c.currency, ${statusAt('$2')} AS status,
  c.hold_until, c.created_at, c.payout_id, c.paid_at, c.reason`;

function views(sql: Sql, where: string, params: Params): Promise<CommissionView[]> {
  return sql.all<CommissionView>(`SELECT ${VIEW_COLUMNS} FROM ${COMMISSIONS} WHERE c.program_id = $1 AND ${where} ORDER BY c.id`, params);
}

/** A page of a list: at most `limit` rows (every row when absent) from `offset` on. */
/** A page of a list: `limit` rows from `offset`, oldest first unless `newestFirst`. */
export type PageRange = { limit?: number; offset: number; newestFirst?: boolean };

/**
 * A program's commissions at `now`, by id (or newest first), optionally of one status (as read) and one partner:
 * the page's rows and the number of matching rows. The total rides on each row as a window count,
 * cheaper than a second count query over the same join (docs/refunds-and-payouts.md#payout-choices-where-the-contract-is-silent); a page past
 * the end has no row to carry it, so only then is it counted apart.
 */
export async function listCommissions(
  sql: Sql,
  programId: number,
  now: Date,
  filter: { status?: CommissionStatus; partnerId?: number },
  page: PageRange = { offset: 0 },
): Promise<{ rows: CommissionView[]; total: number }> {
  const where = `c.program_id = $1 AND ($3::VARCHAR IS NULL OR ${statusAt('$2')} = $3) AND ($4::BIGINT IS NULL OR pp.partner_id = $4)`;
  const params = [programId, now, filter.status ?? null, filter.partnerId ?? null];
  const rows = await sql.all<CommissionView & { total: number }>(
    `SELECT ${VIEW_COLUMNS}, count(*) OVER () AS total FROM ${COMMISSIONS} WHERE ${where} ORDER BY c.id ${page.newestFirst ? 'DESC' : ''} LIMIT $5 OFFSET $6`,
    [...params, page.limit ?? null, page.offset],
  );
  if (rows.length === 0 && page.offset > 0) {
    const { total } = (await sql.one<{ total: number }>(`SELECT count(*) AS total FROM ${COMMISSIONS} WHERE ${where}`, params))!;
    return { rows, total };
  }
  return { rows, total: rows[0]?.total ?? 0 };
}

/** The commissions of `ids` that belong to the program, at `now`, by id. */
export function findCommissions(sql: Sql, programId: number, now: Date, ids: number[]): Promise<CommissionView[]> {
  return views(sql, 'c.id = ANY($3::BIGINT[])', [programId, now, list(ids)]);
}

/** The clawbacks of the program's sales `saleIds` that count (neither rejected nor reversed), at `now`, by id. */
export function saleClawbacks(sql: Sql, programId: number, now: Date, saleIds: number[]): Promise<CommissionView[]> {
  return views(sql, "c.type = 'clawback' AND c.status NOT IN ('rejected', 'reversed') AND c.sale_id = ANY($3::BIGINT[])", [programId, now, list(saleIds)]);
}

/** Sets the stored status and reason of the program's commissions `ids`. */
export async function setCommissionStatus(sql: Sql, programId: number, ids: number[], status: CommissionStatus, reason: string | null): Promise<void> {
  await sql.write({ table: 'commissions', set: 'status = $3, reason = $4', where: 'program_id = $1 AND id = ANY($2::BIGINT[])' }, [
    programId, list(ids), status, reason,
  ]);
}

/**
 * Stores `approved` for the program's commissions that read as approved while still stored
 * `pending` (hold over, automatic approval), so a switch to manual approval takes none of them back.
 */
export async function storeAutomaticApprovals(sql: Sql, programId: number, now: Date): Promise<void> {
  await sql.write(
    {
      table: 'commissions', alias: 'c', set: "status = 'approved'", from: 'programs p',
      where: `p.id = c.program_id AND c.program_id = $1 AND c.status = 'pending' AND ${statusAt('$2')} = 'approved'`,
    },
    [programId, now],
  );
}

/** A partner's balance in one currency: the sum of its approved commissions (HUGEINT: a sum can pass 2^63). */
export type BalanceRow = { partner_id: number; currency: string; balance_cents: bigint; commissions: number };

/** The program's balances at `now` (docs/refunds-and-payouts.md#balances-and-the-payout-preview), by partner and currency. */
export function balances(sql: Sql, programId: number, now: Date): Promise<BalanceRow[]> {
  return sql.all<BalanceRow>(
    `SELECT pp.partner_id, c.currency, CAST(sum(c.amount_cents) AS HUGEINT) AS balance_cents, count(*) AS commissions
     FROM ${COMMISSIONS} WHERE c.program_id = $1 AND ${statusAt('$2')} = 'approved'
     GROUP BY pp.partner_id, c.currency ORDER BY pp.partner_id, c.currency`,
    [programId, now],
  );
}

/**
 * Puts every commission that reads as approved at `now` of each (partner, currency) into its
 * payout: status `processing`, `payout_id` set. One statement for the whole batch.
 */
export async function takeIntoPayouts(
  sql: Sql,
  programId: number,
  now: Date,
  payouts: Array<{ id: number; partnerId: number; currency: string }>,
): Promise<void> {
  await sql.write(
    {
      table: 'commissions', alias: 'c', set: 'status = \'processing\', payout_id = d.payout_id',
      from: `programs p, partner_programs pp,
       (SELECT unnest($3::BIGINT[]) AS payout_id, unnest($4::BIGINT[]) AS partner_id, unnest($5::VARCHAR[]) AS currency) d`,
      where: `c.program_id = $1 AND p.id = c.program_id AND pp.id = c.partner_program_id
       AND pp.partner_id = d.partner_id AND c.currency = d.currency AND ${statusAt('$2')} = 'approved'`,
    },
    [programId, now, list(payouts.map((p) => p.id)), list(payouts.map((p) => p.partnerId)), list(payouts.map((p) => p.currency))],
  );
}
