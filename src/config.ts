import { accessSync, constants, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { randomToken } from './domain/secrets.js';

/** The files of a data dir (docs/api.md#data-dir, docs/api.md#the-admin-token-and-the-admin-api). */
export type DataDir = {
  root: string;
  /** The DuckDB file, used unless `databaseUrl` names a PostgreSQL database. */
  database: string;
  /** --database-url, else PARTNERKIT_DATABASE_URL: the PostgreSQL database shared by every instance (docs/store-engines.md#several-instances-on-postgresql). */
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
 * Creates the data dir (mode 0700) and its admin token (0600, `adminToken` when given, as a restore
 * gives it) on first use; returns the token. Every process that opens a data dir comes through here first.
 */
export function ensureDataDir(dir: DataDir, adminToken?: string): string {
  makeDataDir(dir);
  if (!existsSync(dir.adminTokenFile)) {
    writeFileSync(dir.adminTokenFile, `${adminToken ?? randomToken('pka_', 32)}\n`, { mode: 0o600, flag: 'wx' });
  }
  return readAdminToken(dir)!;
}

/**
 * Creates the data dir (mode 0700) unless it exists, and checks that it can be written, else a
 * DataDirError naming the reason. It also makes every file this process creates from now on the
 * owner's alone: DuckDB creates its database, WAL and temporary files itself, whenever it needs
 * them, with the process umask (docs/api.md#data-dir).
 */
export function makeDataDir(dir: DataDir): void {
  process.umask(0o077);
  try {
    makeDir(dir.root);
    // DuckDB writes its WAL beside the database: a dir it cannot write fails here, not inside DuckDB.
    accessSync(dir.root, constants.W_OK);
  } catch (error) {
    const reason = UNUSABLE[(error as NodeJS.ErrnoException).code ?? ''];
    if (!reason) throw error;
    throw new DataDirError('data_dir_unusable', `Cannot use the data dir ${dir.root}: ${reason} (--data-dir or PARTNERKIT_DATA_DIR names another)`);
  }
}

/**
 * mkdir -p, mode 0700. Node's own recursive mkdir reports a read-only file system as ENOENT, and
 * under /proc never returns: each level is made here, so the error is the real one.
 */
function makeDir(path: string): void {
  try {
    mkdirSync(path, { mode: 0o700 });
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'EEXIST' && statSync(path).isDirectory()) return;
    if (code !== 'ENOENT' || dirname(path) === path) throw error;
    makeDir(dirname(path));
    mkdirSync(path, { mode: 0o700 });
  }
}

/** Why a data dir cannot be created or written, by the file system's error code (docs/operations.md#start-up-errors). */
const UNUSABLE: Record<string, string> = {
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EEXIST: 'a file is in the way (not a directory)',
  ENOTDIR: 'a file is in the way of one of its parent directories',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ENOENT: 'no directory can be created there',
};

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
 * The data cannot be opened as configured: the data dir cannot be created or written, another
 * process holds its DuckDB file (DuckDB lets one process open it), the PostgreSQL database cannot be reached, or its admin token
 * is not this data dir's (docs/store-engines.md#several-instances-on-postgresql). Exit 2: the command line or setup must change.
 */
export class DataDirError extends Error {
  constructor(
    readonly code: 'data_dir_locked' | 'data_dir_unusable' | 'database_unreachable' | 'admin_token_mismatch',
    message: string,
  ) {
    super(message);
  }
}

/** `serve` cannot listen where it was told to (docs/operations.md#start-up-errors). Exit 2, as for DataDirError. */
export class ListenError extends Error {
  constructor(
    readonly code: 'port_in_use' | 'cannot_listen',
    message: string,
  ) {
    super(message);
  }
}

/** A listen failure of `serve` as one line that says what to change; other errors as they are. */
export function listenError(error: unknown, host: string, port: number): unknown {
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new ListenError('port_in_use', `Port ${port} on ${host} is already in use: stop what listens there, or choose another port with --port (or PARTNERKIT_PORT)`);
    case 'EACCES':
      return new ListenError('cannot_listen', `Port ${port} on ${host} needs more privileges than this process has: choose a port above 1023 with --port`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ListenError('cannot_listen', `Cannot listen on ${host}: not an address of this machine (--host)`);
    default:
      return error;
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

/** PARTNERKIT_STRIPE_API_BASE: the base URL Stripe reconciliation talks to instead of Stripe's API (docs/stripe-reconciliation.md#the-api-base-url). */
export function stripeApiBase(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.PARTNERKIT_STRIPE_API_BASE || undefined;
}
