import { list, type Columns, type Sql } from './db.js';

export type PayoutMethod = 'paypal' | 'wise' | 'manual';

export type PartnerStatus = 'active' | 'inactive';

export type PartnerRow = {
  id: number;
  name: string;
  email: string;
  created_at: Date;
  payout_method: PayoutMethod | null;
  payout_email: string | null;
  status: PartnerStatus;
};

export type PartnerProgramRow = {
  id: number;
  partner_id: number;
  program_id: number;
  ref_code: string;
  status: 'active' | 'inactive';
  created_at: Date;
  /** The enrollment's partner group; null or left out: the program's default group (docs/groups.md#which-group-a-partner-is-in). */
  group_id?: number | null;
};

export async function insertPartner(sql: Sql, p: PartnerRow): Promise<void> {
  await sql.run('INSERT INTO partners (id, name, email, created_at, payout_method, payout_email, status) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    p.id, p.name, p.email, p.created_at, p.payout_method, p.payout_email, p.status,
  ]);
}

export async function updatePartner(sql: Sql, p: Omit<PartnerRow, 'created_at'>): Promise<void> {
  await sql.run('UPDATE partners SET name = $2, email = $3, payout_method = $4, payout_email = $5, status = $6 WHERE id = $1', [
    p.id, p.name, p.email, p.payout_method, p.payout_email, p.status,
  ]);
}

/** Sets the status of every enrollment of a partner: its links and attribution follow it. */
export async function setPartnerEnrollmentsStatus(sql: Sql, partnerId: number, status: PartnerStatus): Promise<void> {
  await sql.write({ table: 'partner_programs', set: 'status = $2', where: 'partner_id = $1' }, [partnerId, status]);
}

/** Partners by id: one round trip for a batch's payouts. */
export function findPartners(sql: Sql, ids: number[]): Promise<PartnerRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return sql.all<PartnerRow>('SELECT * FROM partners WHERE id = ANY($1::BIGINT[])', [list(ids)]);
}

export function findPartner(sql: Sql, id: number): Promise<PartnerRow | undefined> {
  return sql.one<PartnerRow>('SELECT * FROM partners WHERE id = $1', [id]);
}

export function findPartnerByEmail(sql: Sql, email: string): Promise<PartnerRow | undefined> {
  return sql.one<PartnerRow>('SELECT * FROM partners WHERE email = $1', [email]);
}

/** partner_programs' columns, in the table's order. */
const PARTNER_PROGRAM_COLUMNS: Columns<PartnerProgramRow> = [
  ['id', 'BIGINT'], ['partner_id', 'BIGINT'], ['program_id', 'BIGINT'], ['ref_code', 'VARCHAR'], ['status', 'VARCHAR'], ['created_at', 'TIMESTAMP'],
  ['group_id', 'BIGINT'],
];

export async function insertPartnerProgram(sql: Sql, pp: PartnerProgramRow): Promise<void> {
  await sql.append('partner_programs', PARTNER_PROGRAM_COLUMNS, [{ ...pp, group_id: pp.group_id ?? null }]);
}

export function findEnrollment(sql: Sql, programId: number, partnerId: number): Promise<PartnerProgramRow | undefined> {
  return sql.one<PartnerProgramRow>('SELECT * FROM partner_programs WHERE program_id = $1 AND partner_id = $2', [programId, partnerId]);
}

/** Enrollments by referral code: one round trip for a batch of clicks. */
export function findEnrollmentsByRefs(sql: Sql, refCodes: string[]): Promise<PartnerProgramRow[]> {
  if (refCodes.length === 0) return Promise.resolve([]);
  return sql.all<PartnerProgramRow>('SELECT * FROM partner_programs WHERE ref_code = ANY($1::VARCHAR[])', [list(refCodes)]);
}


export type PartnerSessionRow = { token_hash: string; partner_id: number; created_at: Date; expires_at: Date };

export async function insertPartnerSession(sql: Sql, s: PartnerSessionRow): Promise<void> {
  await sql.run('INSERT INTO partner_sessions (token_hash, partner_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
    s.token_hash, s.partner_id, s.created_at, s.expires_at,
  ]);
}

export function findPartnerSession(sql: Sql, tokenHash: string): Promise<PartnerSessionRow | undefined> {
  return sql.one<PartnerSessionRow>('SELECT * FROM partner_sessions WHERE token_hash = $1', [tokenHash]);
}

/** Ends every portal session of a partner; answers how many there were. */
export async function deletePartnerSessions(sql: Sql, partnerId: number): Promise<number> {
  return (await sql.all('DELETE FROM partner_sessions WHERE partner_id = $1 RETURNING token_hash', [partnerId])).length;
}

/** Signs a partner session out: the token is refused from now on. */
export async function deletePartnerSession(sql: Sql, tokenHash: string): Promise<void> {
  await sql.run('DELETE FROM partner_sessions WHERE token_hash = $1', [tokenHash]);
}

/**
 * A program's enrollments with their partners' names and e-mails, by partner id; with `q`, only
 * those whose name or e-mail contains it in any case (strpos, so % and _ are plain characters).
 */
export function programPartners(sql: Sql, programId: number, q?: string): Promise<Array<PartnerProgramRow & Pick<PartnerRow, 'name' | 'email' | 'payout_method'>>> {
  return sql.all(
    `SELECT e.*, pa.name, pa.email, pa.payout_method FROM partner_programs e JOIN partners pa ON pa.id = e.partner_id
     WHERE e.program_id = $1 AND ($2::VARCHAR IS NULL OR strpos(lower(pa.name), $2) > 0 OR strpos(pa.email, $2) > 0)
     ORDER BY e.partner_id`,
    [programId, q === undefined ? null : q.toLowerCase()],
  );
}

/** A partner's enrollment with what its portal shows of the program. */
export type PartnerEnrollmentRow = PartnerProgramRow & { program_name: string; landing_url: string | null };

/** Every enrollment of a partner, by program id. */
export function partnerEnrollments(sql: Sql, partnerId: number): Promise<PartnerEnrollmentRow[]> {
  return sql.all<PartnerEnrollmentRow>(
    `SELECT e.*, p.name AS program_name, p.landing_url FROM partner_programs e JOIN programs p ON p.id = e.program_id
     WHERE e.partner_id = $1 ORDER BY e.program_id`,
    [partnerId],
  );
}

/** The currencies an enrollment's live sales and commissions were in, at most `limit` of them. */
export async function enrollmentCurrencies(sql: Sql, programId: number, enrollmentId: number, limit: number): Promise<string[]> {
  const rows = await sql.all<{ currency: string }>(
    `SELECT DISTINCT currency FROM (
       SELECT currency FROM sale_events WHERE program_id = $1 AND partner_program_id = $2
       UNION ALL SELECT currency FROM commissions WHERE program_id = $1 AND partner_program_id = $2
     ) AS c ORDER BY currency LIMIT $3`,
    [programId, enrollmentId, limit],
  );
  return rows.map((r) => r.currency);
}
