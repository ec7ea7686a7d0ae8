import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomToken } from './domain/secrets.js';

/** The files of a data dir (docs/behaviour.md §1.2, §2.1). */
export type DataDir = {
  root: string;
  /** The DuckDB file, used unless `databaseUrl` names a PostgreSQL database. */
  database: string;
  /** --database-url, else PARTNERKIT_DATABASE_URL: the PostgreSQL database shared by every instance (docs/behaviour.md §17). */
  databaseUrl?: string;
  /** The instance admin token, mode 0600, created with the data dir. */
  adminTokenFile: string;
  /** Written by `serve` while it holds the database, so other commands go through it. */
  discoveryFile: string;
  /** The files of the exports `serve` is answering; what a killed server left is removed at its next start (docs/exports.md#temporary-files). */
  exportsDir: string;
};

/** --data-dir, else PARTNERKIT_DATA_DIR, else ./.partnerkit; the database URL likewise. */
export function dataDir(flag?: string, env: NodeJS.ProcessEnv = process.env, databaseUrl = env.PARTNERKIT_DATABASE_URL || undefined): DataDir {
  const root = resolve(flag ?? env.PARTNERKIT_DATA_DIR ?? '.partnerkit');
  return {
    root,
    database: join(root, 'partnerkit.duckdb'),
    databaseUrl,
    adminTokenFile: join(root, 'admin-token'),
    discoveryFile: join(root, 'server.json'),
    exportsDir: join(root, 'exports'),
  };
}

/**
 * Creates the data dir (mode 0700) and its admin token (0600) on first use; returns the token.
 * It also makes every file this process creates from now on the owner's alone: DuckDB creates its
 * database, WAL and temporary files itself, whenever it needs them, with the process umask
 * (docs/behaviour.md §1.2). Every process that opens a data dir comes through here first.
 */
export function ensureDataDir(dir: DataDir): string {
  process.umask(0o077);
  mkdirSync(dir.root, { recursive: true, mode: 0o700 });
  if (!existsSync(dir.adminTokenFile)) {
    writeFileSync(dir.adminTokenFile, `${randomToken('pka_', 32)}\n`, { mode: 0o600, flag: 'wx' });
  }
  return readAdminToken(dir)!;
}

/** A database URL without its password, for messages. */
export function redactedUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

export function readAdminToken(dir: DataDir): string | undefined {
  return existsSync(dir.adminTokenFile) ? readFileSync(dir.adminTokenFile, 'utf8').trim() : undefined;
}

/**
 * The data cannot be opened as configured: another process holds the data dir's DuckDB file
 * (DuckDB lets one process open it), the PostgreSQL database cannot be reached, or its admin token
 * is not this data dir's (docs/behaviour.md §17.2). Exit 2: the command line or setup must change.
 */
export class DataDirError extends Error {
  constructor(
    readonly code: 'data_dir_locked' | 'database_unreachable' | 'admin_token_mismatch',
    message: string,
  ) {
    super(message);
  }
}

export type Discovery = { url: string; pid: number; startedAt: string };

/** The running server of this data dir, if its discovery file names a live process. */
export function runningServer(dir: DataDir): Discovery | undefined {
  if (!existsSync(dir.discoveryFile)) return undefined;
  try {
    const discovery = JSON.parse(readFileSync(dir.discoveryFile, 'utf8')) as Discovery;
    process.kill(discovery.pid, 0);
    return discovery;
  } catch {
    return undefined; // stale file of a process that died without cleaning up
  }
}
