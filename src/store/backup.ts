import { chmod, copyFile, rm } from 'node:fs/promises';
import type { Store } from './db.js';

/**
 * A backup file is a DuckDB database: the snapshot of the data dir's database, plus a table
 * `partnerkit_backup` with what the data dir keeps beside it (docs/operations.md#backup-and-restore).
 */
const BACKUP_TABLE = 'partnerkit_backup';

/** What a data dir keeps outside its database. */
export type BackupExtras = { adminToken: string; takenAt: string };

/** Why a file cannot be restored, or a backup not taken, said to the operator as it is. */
export class BackupError extends Error {}

/** On PostgreSQL the database's own tools do it (docs/operations.md#backup-and-restore). */
export const POSTGRES_BACKUP =
  'The data is in PostgreSQL, not in the data dir: back it up with pg_dump (pg_dump -Fc -f partnerkit.dump "$PARTNERKIT_DATABASE_URL") and restore it with pg_restore';

/** Runs `fn` on a connection to the DuckDB file at `path`, opened by itself, then closes it. */
async function withFile<T>(path: string, fn: (connection: import('@duckdb/node-api').DuckDBConnection) => Promise<T>): Promise<T> {
  // Loaded here: the admin routes that import this module also run on PostgreSQL, without DuckDB.
  const { duckdb } = await import('./duckdb.js');
  const instance = await duckdb.DuckDBInstance.create(path, { threads: '1' });
  const connection = await instance.connect();
  try {
    return await fn(connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** Writes a backup of the store's database and `extras` to `path` (mode 0600). */
export async function writeBackup(store: Store, path: string, extras: BackupExtras): Promise<void> {
  await store.backup(path);
  await chmod(path, 0o600);
  // The copy is a file of its own: this process may open it beside the data dir's database.
  await withFile(path, async (connection) => {
    await connection.run(`CREATE TABLE ${BACKUP_TABLE} (name VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)`);
    await connection.run(`INSERT INTO ${BACKUP_TABLE} VALUES ('admin_token', $1), ('taken_at', $2)`, [extras.adminToken, extras.takenAt]);
    await connection.run('CHECKPOINT');
  });
  await rm(`${path}.wal`, { force: true });
}

/**
 * Copies the backup at `from` to `database` (which must not exist) without its extras, mode 0600,
 * and answers the extras; a file that is not a partnerkit backup is refused and nothing is left.
 */
export async function restoreBackup(from: string, database: string): Promise<BackupExtras> {
  await copyFile(from, database, 1 /* COPYFILE_EXCL */);
  try {
    await chmod(database, 0o600);
    return await withFile(database, async (connection) => {
      const found = await connection.run(`SELECT count(*) FROM duckdb_tables() WHERE table_name = '${BACKUP_TABLE}'`);
      if (Number((await found.getRows())[0][0]) === 0) throw new BackupError(`${from} is not a partnerkit backup (it has no ${BACKUP_TABLE} table)`);
      const rows = (await (await connection.run(`SELECT name, value FROM ${BACKUP_TABLE}`)).getRows()) as Array<[string, string]>;
      const values = Object.fromEntries(rows);
      await connection.run(`DROP TABLE ${BACKUP_TABLE}`);
      await connection.run('CHECKPOINT');
      return { adminToken: values.admin_token, takenAt: values.taken_at };
    });
  } catch (error) {
    await rm(database, { force: true });
    await rm(`${database}.wal`, { force: true });
    if (error instanceof BackupError) throw error;
    throw new BackupError(`${from} is not a partnerkit backup: ${(error as Error).message.split('\n')[0]}`);
  }
}
