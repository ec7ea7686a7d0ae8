import { createReadStream, type ReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '../errors.js';
import { BackupError, writeBackup } from '../store/backup.js';
import type { Deps } from './deps.js';

/**
 * A backup of the server's data dir for an HTTP answer (docs/operations.md#backup-and-restore):
 * written to a private temporary file, read back as a stream that removes it when it closes.
 * `adminToken` is the token the request was authorized with, which is the data dir's.
 */
export async function backupFile({ store, clock }: Deps, adminToken: string): Promise<ReadStream> {
  const dir = await mkdtemp(join(tmpdir(), 'partnerkit-backup-'));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    const path = join(dir, 'partnerkit.backup');
    await writeBackup(store, path, { adminToken, takenAt: clock.now().toISOString() });
    const stream = createReadStream(path);
    stream.once('close', () => void remove());
    return stream;
  } catch (error) {
    await remove();
    if (error instanceof BackupError) throw new AppError('not_implemented', error.message);
    throw error;
  }
}
