import { list, type Sql } from './db.js';

/** Of `emails`, those that switched off mail of `kind` (docs/mail.md#notifications-and-unsubscribing). */
export async function unsubscribed(sql: Sql, kind: string, emails: string[]): Promise<Set<string>> {
  if (emails.length === 0) return new Set();
  const rows = await sql.all<{ email: string }>('SELECT email FROM mail_unsubscribes WHERE kind = $1 AND email = ANY($2::VARCHAR[])', [kind, list(emails)]);
  return new Set(rows.map((r) => r.email));
}

/** Switches a kind of mail off for an address; switching it off twice changes nothing. */
export async function unsubscribe(sql: Sql, email: string, kind: string, at: Date): Promise<void> {
  await sql.run('INSERT INTO mail_unsubscribes (email, kind, created_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [email, kind, at]);
}

/** Switches a kind of mail on again for an address. */
export async function resubscribe(sql: Sql, email: string, kind: string): Promise<void> {
  await sql.run('DELETE FROM mail_unsubscribes WHERE email = $1 AND kind = $2', [email, kind]);
}

/** The e-mail addresses of a program's active members. */
export async function activeMemberEmails(sql: Sql, programId: number): Promise<string[]> {
  const rows = await sql.all<{ email: string }>(
    `SELECT u.email FROM workspace_members m JOIN users u ON u.id = m.user_id WHERE m.program_id = $1 AND m.status = 'active' ORDER BY u.id`,
    [programId],
  );
  return rows.map((r) => r.email);
}

/** For enrollments by id: the partner's name, e-mail and status and the program's name, to address a partner's notification. */
export function enrollmentRecipients(
  sql: Sql,
  enrollmentIds: number[],
): Promise<Array<{ enrollment_id: number; name: string; email: string; status: string; program_name: string }>> {
  return sql.all(
    `SELECT pp.id AS enrollment_id, p.name, p.email, p.status, g.name AS program_name
     FROM partner_programs pp JOIN partners p ON p.id = pp.partner_id JOIN programs g ON g.id = pp.program_id
     WHERE pp.id = ANY($1::BIGINT[])`,
    [list(enrollmentIds)],
  );
}
