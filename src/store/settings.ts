import type { Sql } from './db.js';

/** Values of the installation kept in the database (the visitor salt, docs/tracking.md#unique-clicks). */
export async function findSetting(sql: Sql, name: string): Promise<string | undefined> {
  return (await sql.one<{ value: string }>('SELECT value FROM settings WHERE name = $1', [name]))?.value;
}

export async function insertSetting(sql: Sql, name: string, value: string): Promise<void> {
  await sql.run('INSERT INTO settings (name, value) VALUES ($1, $2)', [name, value]);
}

export async function updateSetting(sql: Sql, name: string, value: string): Promise<void> {
  await sql.run('UPDATE settings SET value = $2 WHERE name = $1', [name, value]);
}
