import { list, type Sql } from './db.js';

export type PayoutMethod = 'paypal' | 'wise' | 'manual';

export type PartnerRow = {
  id: number;
  name: string;
  email: string;
  created_at: Date;
  payout_method: PayoutMethod | null;
  payout_email: string | null;
};

export type PartnerProgramRow = {
  id: number;
  partner_id: number;
  program_id: number;
  ref_code: string;
  status: 'active' | 'inactive';
  created_at: Date;
};

export async function insertPartner(sql: Sql, p: PartnerRow): Promise<void> {
  await sql.run('INSERT INTO partners (id, name, email, created_at, payout_method, payout_email) VALUES ($1, $2, $3, $4, $5, $6)', [
    p.id, p.name, p.email, p.created_at, p.payout_method, p.payout_email,
  ]);
}

export async function updatePartner(sql: Sql, p: Omit<PartnerRow, 'created_at'>): Promise<void> {
  await sql.run('UPDATE partners SET name = $2, email = $3, payout_method = $4, payout_email = $5 WHERE id = $1', [
    p.id, p.name, p.email, p.payout_method, p.payout_email,
  ]);
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

export async function insertPartnerProgram(sql: Sql, pp: PartnerProgramRow): Promise<void> {
  await sql.run(
    'INSERT INTO partner_programs (id, partner_id, program_id, ref_code, status, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [pp.id, pp.partner_id, pp.program_id, pp.ref_code, pp.status, pp.created_at],
  );
}

export function findEnrollment(sql: Sql, programId: number, partnerId: number): Promise<PartnerProgramRow | undefined> {
  return sql.one<PartnerProgramRow>('SELECT * FROM partner_programs WHERE program_id = $1 AND partner_id = $2', [programId, partnerId]);
}

/** Enrollments by referral code: one round trip for a batch of clicks. */
export function findEnrollmentsByRefs(sql: Sql, refCodes: string[]): Promise<PartnerProgramRow[]> {
  if (refCodes.length === 0) return Promise.resolve([]);
  return sql.all<PartnerProgramRow>('SELECT * FROM partner_programs WHERE ref_code = ANY($1::VARCHAR[])', [list(refCodes)]);
}


