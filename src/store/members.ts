import type { Sql } from './db.js';

export type UserRow = { id: number; email: string; created_at: Date };
export type MemberRow = { program_id: number; user_id: number; status: 'active' | 'inactive'; created_at: Date; updated_at: Date };
export type SessionRow = { token_hash: string; user_id: number; created_at: Date; expires_at: Date };

export function findUserByEmail(sql: Sql, email: string): Promise<UserRow | undefined> {
  return sql.one<UserRow>('SELECT * FROM users WHERE email = $1', [email]);
}

export function findUser(sql: Sql, id: number): Promise<UserRow | undefined> {
  return sql.one<UserRow>('SELECT * FROM users WHERE id = $1', [id]);
}

export async function insertUser(sql: Sql, u: UserRow): Promise<void> {
  await sql.run('INSERT INTO users (id, email, created_at) VALUES ($1, $2, $3)', [u.id, u.email, u.created_at]);
}

export function findMember(sql: Sql, programId: number, userId: number): Promise<MemberRow | undefined> {
  return sql.one<MemberRow>('SELECT * FROM workspace_members WHERE program_id = $1 AND user_id = $2', [programId, userId]);
}

export async function upsertMember(sql: Sql, programId: number, userId: number, status: MemberRow['status'], at: Date): Promise<void> {
  await sql.run(
    `INSERT INTO workspace_members (program_id, user_id, status, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)
     ON CONFLICT (program_id, user_id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at`,
    [programId, userId, status, at],
  );
}

export async function insertSession(sql: Sql, s: SessionRow): Promise<void> {
  await sql.run('INSERT INTO sessions (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)', [
    s.token_hash, s.user_id, s.created_at, s.expires_at,
  ]);
}

export function findSession(sql: Sql, tokenHash: string): Promise<SessionRow | undefined> {
  return sql.one<SessionRow>('SELECT * FROM sessions WHERE token_hash = $1', [tokenHash]);
}

/** Signs a dashboard session out: the token is refused from now on. */
export async function deleteSession(sql: Sql, tokenHash: string): Promise<void> {
  await sql.run('DELETE FROM sessions WHERE token_hash = $1', [tokenHash]);
}

/** Ends every dashboard session of a user; answers how many there were. */
export async function deleteUserSessions(sql: Sql, userId: number): Promise<number> {
  return (await sql.all('DELETE FROM sessions WHERE user_id = $1 RETURNING token_hash', [userId])).length;
}

/** The programs a user is an active member of, by id. */
export function memberPrograms(sql: Sql, userId: number): Promise<Array<{ id: number; name: string }>> {
  return sql.all(
    `SELECT p.id, p.name FROM workspace_members m JOIN programs p ON p.id = m.program_id
     WHERE m.user_id = $1 AND m.status = 'active' ORDER BY p.id`,
    [userId],
  );
}

/** A program's members, active or not, with their e-mails, by e-mail. */
export function programMembers(sql: Sql, programId: number): Promise<Array<MemberRow & { email: string }>> {
  return sql.all(
    `SELECT m.*, u.email FROM workspace_members m JOIN users u ON u.id = m.user_id WHERE m.program_id = $1 ORDER BY u.email`,
    [programId],
  );
}
