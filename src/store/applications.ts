import type { Sql } from './db.js';

export type ApplicationStatus = 'pending' | 'approved' | 'rejected';

/** A partner application (docs/applications.md#how-an-application-is-stored). */
export type ApplicationRow = {
  id: number;
  program_id: number;
  /** Lower case: one application per program and address. */
  email: string;
  name: string;
  website: string | null;
  message: string | null;
  status: ApplicationStatus;
  /** Why it was rejected, when it was. */
  reason: string | null;
  /** The partner an approval enrolled. */
  partner_id: number | null;
  created_at: Date;
  decided_at: Date | null;
};

export async function insertApplication(sql: Sql, a: ApplicationRow): Promise<void> {
  await sql.run(
    `INSERT INTO partner_applications (id, program_id, email, name, website, message, status, reason, partner_id, created_at, decided_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [a.id, a.program_id, a.email, a.name, a.website, a.message, a.status, a.reason, a.partner_id, a.created_at, a.decided_at],
  );
}

export function findApplication(sql: Sql, id: number): Promise<ApplicationRow | undefined> {
  return sql.one<ApplicationRow>('SELECT * FROM partner_applications WHERE id = $1', [id]);
}

export function findApplicationByEmail(sql: Sql, programId: number, email: string): Promise<ApplicationRow | undefined> {
  return sql.one<ApplicationRow>('SELECT * FROM partner_applications WHERE program_id = $1 AND email = $2', [programId, email]);
}

/** A program's applications, newest first, optionally of one status. */
export function programApplications(sql: Sql, programId: number, status: ApplicationStatus | undefined): Promise<ApplicationRow[]> {
  return sql.all<ApplicationRow>(
    'SELECT * FROM partner_applications WHERE program_id = $1 AND ($2::VARCHAR IS NULL OR status = $2) ORDER BY id DESC',
    [programId, status ?? null],
  );
}

/** Records a member's decision. */
export async function decideApplication(sql: Sql, id: number, decision: Pick<ApplicationRow, 'status' | 'reason' | 'partner_id' | 'decided_at'>): Promise<void> {
  await sql.run('UPDATE partner_applications SET status = $2, reason = $3, partner_id = $4, decided_at = $5 WHERE id = $1', [
    id, decision.status, decision.reason, decision.partner_id, decision.decided_at,
  ]);
}
