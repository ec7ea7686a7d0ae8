import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { cliEnv, runJson, startServe, tempDataDir } from '../helpers/cli.js';

/** Every directory and file under `root` (itself included) with its permission bits, e.g. `partnerkit.duckdb.wal 600`. */
function modes(root: string): string[] {
  const found = [`. ${(statSync(root).mode & 0o777).toString(8)}`];
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    found.push(`${path.slice(root.length + 1)} ${(statSync(path).mode & 0o777).toString(8)}`);
  }
  return found.sort();
}

/**
 * Commands and `serve` run with the usual umask 022 here, under which anything created without an
 * explicit mode would be readable by every user of the machine.
 */
function permissiveUmask(): void {
  const previous = process.umask(0o022);
  onTestFinished(() => {
    process.umask(previous);
  });
}

describe('files in the data dir (docs/behaviour.md §1.2)', () => {
  test('a command creates the data dir 0700 and every file in it 0600', async () => {
    permissiveUmask();
    const dataDir = join(tempDataDir(), 'data');
    await runJson(['program', 'create', '--name', 'Acme'], cliEnv(dataDir));
    expect(modes(dataDir)).toEqual(['. 700', 'admin-token 600', 'partnerkit.duckdb 600']);
  });

  test('serve: the database, its WAL and server.json are 0600 while it runs, and the files left after it stops too', async () => {
    permissiveUmask();
    const dataDir = join(tempDataDir(), 'data');
    const server = await startServe(dataDir);
    // A write through the server: DuckDB keeps it in the WAL until the checkpoint at shutdown.
    await runJson(['program', 'create', '--name', 'Acme'], cliEnv(dataDir));
    expect(modes(dataDir)).toEqual(['. 700', 'admin-token 600', 'partnerkit.duckdb 600', 'partnerkit.duckdb.wal 600', 'server.json 600']);
    expect(await server.stop()).toBe(0);
    expect(modes(dataDir)).toEqual(['. 700', 'admin-token 600', 'partnerkit.duckdb 600']);
  });
});
