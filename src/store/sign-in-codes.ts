import type { Sql } from './db.js';

/** A sign-in link's one-time code as stored: its SHA-256, for a user (the dashboard) or a partner (the portal). */
export type SignInCodeRow = {
  code_hash: string;
  user_id: number | null;
  partner_id: number | null;
  created_at: Date;
  expires_at: Date;
  /** When the session the code opens ends. */
  session_expires_at: Date;
};

export async function insertSignInCode(sql: Sql, c: SignInCodeRow): Promise<void> {
  await sql.run(
    'INSERT INTO sign_in_codes (code_hash, user_id, partner_id, created_at, expires_at, session_expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [c.code_hash, c.user_id, c.partner_id, c.created_at, c.expires_at, c.session_expires_at],
  );
}

/** Takes a code out of the store and answers what it was: a code works once. */
export async function takeSignInCode(sql: Sql, codeHash: string): Promise<SignInCodeRow | undefined> {
  const code = await sql.one<SignInCodeRow>('SELECT * FROM sign_in_codes WHERE code_hash = $1', [codeHash]);
  if (code) await sql.run('DELETE FROM sign_in_codes WHERE code_hash = $1', [codeHash]);
  return code;
}

/** Codes past their expiry open nothing: dropped whenever a new one is stored. */
export async function deleteExpiredSignInCodes(sql: Sql, now: Date): Promise<void> {
  await sql.run('DELETE FROM sign_in_codes WHERE expires_at <= $1', [now]);
}

/** Every unused code of a user or a partner. */
export async function deleteSignInCodesOf(sql: Sql, who: { userId: number } | { partnerId: number }): Promise<void> {
  if ('userId' in who) await sql.run('DELETE FROM sign_in_codes WHERE user_id = $1', [who.userId]);
  else await sql.run('DELETE FROM sign_in_codes WHERE partner_id = $1', [who.partnerId]);
}
