import { existsSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../src/cli/base.js';
import { formatWhen } from '../src/cli/output.js';
import { clockFromEnv } from '../src/clock.js';
import { ensureDataDir, makeDataDir } from '../src/config.js';
import type { BackupExtras } from '../src/store/backup.js';

export default class Restore extends PartnerkitCommand {
  static override description =
    'Fill an empty data dir from a file partnerkit backup wrote: its database and admin token, modes 0700 and 0600; a data dir that is not empty is refused';
  static override examples = ['<%= config.bin %> restore --from partnerkit-2026-03-01.backup --data-dir ./restored'];
  static override flags = {
    from: Flags.string({ description: 'the backup file', required: true }),
  };

  async run() {
    const { flags } = await this.parse(Restore);
    const dir = this.dataDir(flags);
    const { BackupError, POSTGRES_BACKUP, restoreBackup } = await import('../src/store/backup.js');
    if (dir.databaseUrl) this.error(POSTGRES_BACKUP, { exit: 2, code: 'unsupported_engine' });
    const from = resolve(flags.from);
    if (!existsSync(from)) this.error(`There is no backup file ${from}`, { exit: 2, code: 'no_backup' });
    if (existsSync(dir.root) && readdirSync(dir.root).length > 0) {
      this.error(`The data dir ${dir.root} is not empty: restore fills a new data dir (name one with --data-dir)`, { exit: 2, code: 'data_dir_not_empty' });
    }
    // The dir is made (and checked) first, the admin token written last: a failed restore leaves an empty dir.
    makeDataDir(dir);
    let extras: BackupExtras;
    try {
      extras = await restoreBackup(from, dir.database);
    } catch (error) {
      if (error instanceof BackupError) this.error(error.message, { exit: 2, code: 'not_a_backup' });
      throw error;
    }
    ensureDataDir(dir, extras.adminToken);
    this.log(`Restored ${from} (taken ${formatWhen(extras.takenAt, clockFromEnv().now())}) into ${dir.root}`);
    return { dataDir: dir.root, takenAt: extras.takenAt };
  }
}
