import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, test } from 'vitest';
import { cliEnv, runCli, runJson, runOnTerminal, startServe, tempDataDir } from '../helpers/cli.js';

// `partnerkit export` (docs/exports.md#what-an-export-holds) on a data dir and through the server holding it: the
// same files either way. Runs dist/ (`npm run build` first); the file contents are checked in
// test/http/exports.test.ts, here what the command does with them. About fifteen processes a test.

const T0 = '2026-03-01T12:00:00.000Z';

/** A program with one partner, two clicks (one a test click), a lead with an e-mail and two sales. */
async function shop(dataDir: string) {
  const env = cliEnv(dataDir, { PARTNERKIT_NOW: T0, PARTNERKIT_SESSION_TOKEN: '' });
  const program = await runJson(['program', 'create', '--name', 'Acme'], env);
  await runJson(['partner', 'create', '--name', 'Jane', '--email', 'jane@example.com'], env);
  const { refCode } = await runJson(['partner', 'enroll', '--program', '1', '--partner', '1'], env);
  const { click_id: clickId } = await runJson(['click', 'record', '--ref', refCode], env);
  await runJson(['click', 'record', '--ref', refCode, '--test'], env);
  await runJson(['lead', 'track', '--api-key', program.apiKey, '--customer-key', 'user_1', '--click-id', clickId, '--email', 'user@example.com'], env);
  for (const [txn, cents] of [['in_1', '5000'], ['in_2', '12345']]) {
    await runJson(['sale', 'send', '--api-key', program.apiKey, '--customer-key', 'user_1', '--amount-cents', cents, '--transaction-id', txn], env);
  }
  return { env, dir: dataDir };
}

const csvRows = (path: string) => parse(readFileSync(path), { columns: true }) as Array<Record<string, string>>;

describe('partnerkit export', { timeout: 180_000 }, () => {
  test('on a data dir: default file name and format, the format from --out, --json summary, stdout, test rows on request', async () => {
    const { env, dir } = await shop(tempDataDir());
    const plain = await runCli(['export', '1', '--table', 'clicks'], env, dir);
    expect(plain.code).toBe(0);
    const file = join(dir, 'program-1-clicks.csv');
    expect(plain.stdout).toBe(`Wrote 1 clicks row(s) to ${file} (csv, ${statSync(file).size} B)\n`);
    expect(csvRows(file).map((r) => [r.id, r.is_test, r.partner_id, r.created_at])).toEqual([['1', 'false', '1', T0]]);
    expect(statSync(file).mode & 0o777).toBe(0o600); // customer e-mails and amounts: like the data dir's files

    const out = join(dir, 'sales.json');
    const summary = await runJson(['export', '1', '--table', 'sales', '--out', out], env);
    expect(summary).toEqual({ file: out, table: 'sales', format: 'json', rows: 2, bytes: statSync(out).size });
    expect(JSON.parse(readFileSync(out, 'utf8')).map((s: { transaction_id: string; amount: number; amount_cents: number }) => [s.transaction_id, s.amount_cents, s.amount])).toEqual([
      ['in_1', 5000, 50],
      ['in_2', 12345, 123.45],
    ]);

    const stdout = await runCli(['export', '1', '--table', 'clicks', '--include-test', '--out', '-'], env, dir);
    expect(stdout.code).toBe(0);
    expect(parse<{ is_test: string }>(stdout.stdout, { columns: true }).map((r) => r.is_test)).toEqual(['false', 'true']);

    const parquet = await runJson(['export', '1', '--table', 'customers', '--format', 'parquet', '--out', join(dir, 'c.parquet')], env);
    expect(parquet).toMatchObject({ format: 'parquet', rows: 1 });
    expect(readFileSync(join(dir, 'c.parquet')).subarray(0, 4).toString()).toBe('PAR1');
  });

  test('through the server holding the data dir: the same file as without it', async () => {
    const { env, dir } = await shop(tempDataDir());
    const local = join(dir, 'local.csv');
    await runJson(['export', '1', '--table', 'commissions', '--out', local], env);
    await startServe(dir, [], { PARTNERKIT_NOW: T0 });
    const remote = join(dir, 'remote.csv');
    expect(await runJson(['export', '1', '--table', 'commissions', '--out', remote], env)).toMatchObject({ rows: 2, file: remote });
    expect(readFileSync(remote, 'utf8')).toBe(readFileSync(local, 'utf8'));
    expect(csvRows(remote).map((c) => [c.sale_id, c.amount_cents, c.amount, c.status])).toEqual([
      ['1', '1000', '10.00', 'pending'],
      ['2', '2469', '24.69', 'pending'],
    ]);
  });

  test('failures: one JSON document with the API error, exit 1, and no file left behind, on a data dir and through a server', async () => {
    const { env, dir } = await shop(tempDataDir());
    const check = async () => {
      const backwards = await runCli(['export', '1', '--table', 'clicks', '--from', '2026-03-02', '--to', '2026-03-01', '--out', join(dir, 'x.csv'), '--json'], env, dir);
      expect(backwards.code).toBe(1);
      expect(JSON.parse(backwards.stdout)).toEqual({
        error: {
          code: 'invalid_request', status: 400, message: 'Invalid request: dateFrom: dateFrom is after dateTo',
          details: { fields: [{ field: 'dateFrom', message: 'dateFrom is after dateTo' }] },
        },
      });
      const notADate = await runCli(['export', '1', '--table', 'clicks', '--from', 'yesterday', '--json'], env, dir);
      expect(notADate.code).toBe(1);
      expect(JSON.parse(notADate.stdout).error).toMatchObject({ code: 'invalid_request', status: 400, details: { fields: [expect.objectContaining({ field: 'dateFrom' })] } });
      const unknown = await runCli(['export', '7', '--table', 'clicks', '--json'], env, dir);
      expect(JSON.parse(unknown.stdout).error).toMatchObject({ code: 'not_found', status: 404, message: 'Program 7 not found' });
      expect(readdirSync(dir).filter((f) => f.includes('.csv') || f.includes('partial'))).toEqual([]);
    };
    await check();
    await startServe(dir, [], { PARTNERKIT_NOW: T0 });
    await check();

    const usage = await runCli(['export', '1', '--table', 'api_keys', '--json'], env, dir);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout).error.code).toBe('invalid_usage');
    const stdoutAndJson = await runCli(['export', '1', '--table', 'clicks', '--out', '-', '--json'], env, dir);
    expect(stdoutAndJson.code).toBe(2);
    expect(existsSync(join(dir, '-'))).toBe(false);
  });

  test('on a terminal, a progress bar on a data dir and through a server', async () => {
    const { env, dir } = await shop(tempDataDir());
    const local = await runOnTerminal(['export', '1', '--table', 'clicks', '--out', join(dir, 'a.csv')], env);
    expect(local.code).toBe(0);
    expect(local.output).toMatch(/exporting .* 100% \|/);
    await startServe(dir, [], { PARTNERKIT_NOW: T0 });
    const remote = await runOnTerminal(['export', '1', '--table', 'clicks', '--out', join(dir, 'b.csv')], env);
    expect(remote.output).toMatch(/exporting .* 100% \|/);
    expect(remote.output).toContain(`Wrote 1 clicks row(s) to ${join(dir, 'b.csv')}`);
  });
});
