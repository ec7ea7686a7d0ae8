import { createWriteStream, statSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../src/cli/base.js';
import { formatBytes } from '../src/cli/output.js';
import { clockFromEnv } from '../src/clock.js';
import type { DataDir } from '../src/config.js';

export default class Backup extends PartnerkitCommand {
  static override description =
    'Write a consistent snapshot of a DuckDB data dir (its database and admin token) to a file, through the server when one runs (writes wait for the copy), else from the data dir itself; partnerkit restore fills a new data dir from it';
  static override examples = ['<%= config.bin %> backup --out partnerkit-2026-03-01.backup', '<%= config.bin %> backup --out nightly.backup --url https://partners.example.com'];
  static override flags = {
    out: Flags.string({ description: 'the file to write (replaced when it exists; mode 0600)', required: true }),
  };

  async run() {
    const { flags } = await this.parse(Backup);
    const dir = this.dataDir(flags);
    const { POSTGRES_BACKUP } = await import('../src/store/backup.js');
    const server = this.serverUrl(flags);
    if (!server && dir.databaseUrl) this.error(POSTGRES_BACKUP, { exit: 2, code: 'unsupported_engine' });
    const out = resolve(flags.out);
    const partial = `${out}.partial-${process.pid}`;
    try {
      if (server) {
        await this.withClient(flags, {}, (client) => client.backup((body) => pipeline(body, createWriteStream(partial, { mode: 0o600 }))));
      } else {
        await this.backupLocally(dir, partial);
      }
      await rename(partial, out);
    } finally {
      await rm(partial, { force: true });
    }
    const bytes = statSync(out).size;
    this.log(`Wrote a backup of ${server ?? dir.root} to ${out} (${formatBytes(bytes)})`);
    return { file: out, bytes };
  }

  /** No server holds the data dir: the snapshot is taken from the database, opened here. */
  private async backupLocally(dir: DataDir, path: string): Promise<void> {
    const [{ existsSync }, { openLocalDeps }, { writeBackup }] = await Promise.all([import('node:fs'), import('../src/local.js'), import('../src/store/backup.js')]);
    if (!existsSync(dir.database)) this.error(`There is no database in ${dir.root} to back up`, { exit: 2, code: 'no_database' });
    const clock = clockFromEnv();
    const { deps, adminToken } = await openLocalDeps(dir, clock);
    try {
      await writeBackup(deps.store, path, { adminToken, takenAt: clock.now().toISOString() });
    } finally {
      await deps.store.close();
    }
  }
}
