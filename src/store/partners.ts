import { list, type Sql } from './db.js';

export type PartnerRow = { id: number; name: string; email: string; created_at: Date };

export type PartnerProgramRow = {
  id: number;
  partner_id: number;
  program_id: number;
  ref_code: string;
  status: 'active' | 'inactive';
  created_at: Date;
};

export async function insertPartner(sql: Sql, p: PartnerRow): Promise<void> {
  await sql.run('INSERT INTO partners (id, name, email, created_at) VALUES ($1, $2, $3, $4)', [p.id, p.name, p.email, p.created_at]);
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


