import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cliEnv, runCli, runJson, tempDataDir } from '../helpers/cli.js';
import { testDatabaseUrl } from '../helpers/engine.js';

// Runs against dist/ on PostgreSQL only (the PostgreSQL run): docs/store-engines.md#several-instances-on-postgresql.
describe('one admin token per PostgreSQL database', () => {
  test('the first data dir records its token; another data dir with its own token is refused, and works once it holds the first one', async () => {
    const databaseUrl = testDatabaseUrl();
    const first = tempDataDir();
    const env = (dataDir: string) => cliEnv(dataDir, { PARTNERKIT_DATABASE_URL: databaseUrl });
    expect(await runJson(['program', 'create', '--name', 'Shared'], env(first))).toMatchObject({ id: 1, name: 'Shared' });

    const second = tempDataDir();
    const refused = await runCli(['program', 'list', '--json'], env(second));
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ code: 'admin_token_mismatch', status: null, details: null });
    expect(JSON.parse(refused.stdout).error.message).toMatch(/belongs to another admin token: copy the admin-token file/);

    writeFileSync(join(second, 'admin-token'), readFileSync(join(first, 'admin-token')), { mode: 0o600 });
    expect(await runJson(['program', 'list'], env(second))).toMatchObject([{ id: 1, name: 'Shared' }]);
  });
});
