import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cliEnv, runCli, runJson, startServe, tempDataDir, until } from '../helpers/cli.js';
import { TEST_ENGINE } from '../helpers/engine.js';

const NOW = '2026-03-01T12:00:00.000Z';

/** Every provisioning and tracking command, as an operator runs them; the same whether or not a server holds the data dir. */
async function provisionAndTrack(env: NodeJS.ProcessEnv) {
  const program = await runJson(['program', 'create', '--name', 'Acme', '--commission-percent', '25', '--hold-days', '14'], env);
  expect(program).toMatchObject({
    id: 1, name: 'Acme', commission: { type: 'percent', percent: 25 }, attributionWindowDays: 90, holdDays: 14, recurringMonths: null,
    createdAt: NOW, apiKey: expect.stringMatching(/^pk_live_/), testApiKey: expect.stringMatching(/^pk_test_/), webhookSecret: expect.stringMatching(/^whsec_/),
  });

  const list = await runJson(['program', 'list'], env);
  expect(list.map((p: { id: number; name: string }) => [p.id, p.name])).toEqual([[1, 'Acme']]);
  expect(JSON.stringify(list)).not.toContain(program.apiKey);

  expect(await runJson(['program', 'rule', 'add', '--program', '1', '--product-id', 'pro', '--commission-flat-cents', '700'], env)).toEqual({
    programId: 1, productId: 'pro', commission: { type: 'flat', flatCents: 700 },
  });
  const shown = await runJson(['program', 'show', '--program', '1'], env);
  expect(shown.productRules).toHaveLength(1);
  expect(JSON.stringify(shown)).not.toContain(program.apiKey);

  const key = await runJson(['key', 'create', '--program', '1'], env);
  expect(key).toEqual({ id: 3, apiKey: expect.stringMatching(/^pk_live_/), mode: 'live' });
  expect(await runJson(['key', 'retire', '--program', '1', '--key-id', '3'], env)).toEqual({ id: 3, status: 'retired' });
  const keys = await runJson(['key', 'list', '--program', '1'], env);
  expect(keys.map((k: { id: number; status: string }) => [k.id, k.status])).toEqual([[1, 'active'], [2, 'active'], [3, 'retired']]);
  expect(JSON.stringify(keys)).not.toContain(key.apiKey);

  expect(await runJson(['partner', 'create', '--name', 'Jane', '--email', 'jane@example.com'], env)).toEqual({
    id: 1, name: 'Jane', email: 'jane@example.com', payoutMethod: null, payoutEmail: null, status: 'active',
  });
  const enrollment = await runJson(['partner', 'enroll', '--program', '1', '--partner', '1'], env);
  // The link as printed: a path in-process, on the server's address through one.
  expect(enrollment).toEqual({ id: 1, programId: 1, partnerId: 1, refCode: expect.any(String), createdAt: NOW, link: expect.stringMatching(/\/r\/\w+$/) });
  expect(enrollment.link.endsWith(`/r/${enrollment.refCode}`)).toBe(true);

  const click = await runJson(['click', 'record', '--ref', enrollment.refCode], env);
  expect(click).toEqual({ click_id: expect.stringMatching(/^ck_1_/) });
  expect(await runJson(['lead', 'track', '--api-key', program.apiKey, '--customer-key', 'user_1', '--click-id', click.click_id, '--email', 'u@example.com'], env)).toEqual({
    success: true, customer_id: 1, message: 'Lead tracked',
  });

  expect(await runJson(['member', 'add', '--program', '1', '--email', 'ann@example.com'], env)).toEqual({ userId: 1, programId: 1, status: 'active' });
  expect(await runJson(['member', 'remove', '--program', '1', '--email', 'ann@example.com'], env)).toEqual({ userId: 1, programId: 1, status: 'inactive' });
  const session = await runJson(['session', 'create', '--email', 'ann@example.com', '--ttl-hours', '2'], env);
  expect(session).toEqual({
    token: expect.stringMatching(/^pks_/), expiresAt: '2026-03-01T14:00:00.000Z',
    dashboardUrl: expect.stringMatching(/\/dashboard#code=pkc_[\w-]{43}$/), linkExpiresAt: '2026-03-01T12:15:00.000Z',
  });

  const saleArgs = ['sale', 'send', '--api-key', program.apiKey, '--customer-key', 'user_1', '--amount-cents', '4000', '--transaction-id', 'in_1', '--product-id', 'pro'];
  expect(await runJson(saleArgs, env)).toEqual({ success: true, sale_id: 1, commission_id: 1, message: 'Sale and commission recorded' });
  // A transaction id recorded earlier is a success, as the SDK's trackSale answers it (docs/cli.md#sale-send-and-a-transaction-recorded-earlier).
  const duplicate = await runCli([...saleArgs, '--json'], env);
  expect(duplicate.code).toBe(0);
  expect(JSON.parse(duplicate.stdout)).toEqual({
    error: { code: 'duplicate_transaction', status: 409, message: 'Transaction in_1 was already recorded', details: { sale_id: 1 } },
  });
  const plain = await runCli(saleArgs, env);
  expect(plain).toEqual({ code: 0, stdout: 'Transaction in_1 was already recorded as sale 1; nothing changed.\n', stderr: '' });

  // The flat 7.00 of product pro is kept through a partial refund and reversed by the full one.
  const refundArgs = ['refund', 'send', '--api-key', program.apiKey, '--transaction-id', 'in_1', '--refund-id', 're_1', '--amount-cents', '1500', '--reason', 'damaged'];
  expect(await runJson(refundArgs, env)).toEqual({
    success: true, refund_id: 1, sale_id: 1, refunded_cents: 1500, remaining_cents: 2500, commission_id: 1, commission_status: 'pending', clawback_commission_id: null,
  });
  // A refund id recorded earlier is a success too (docs/cli.md#sale-send-and-a-transaction-recorded-earlier).
  const duplicateRefund = await runCli([...refundArgs, '--json'], env);
  expect(duplicateRefund.code).toBe(0);
  expect(JSON.parse(duplicateRefund.stdout)).toEqual({
    error: { code: 'duplicate_refund', status: 409, message: 'Refund re_1 was already recorded', details: { refund_id: 1 } },
  });
  expect(await runCli(refundArgs, env)).toEqual({ code: 0, stdout: 'Refund re_1 was already recorded as refund 1; nothing changed.\n', stderr: '' });
  expect(await runJson(['refund', 'send', '--api-key', program.apiKey, '--transaction-id', 'in_1', '--refund-id', 're_2'], env)).toMatchObject({
    refund_id: 2, refunded_cents: 4000, remaining_cents: 0, commission_status: 'reversed',
  });
  const testSale = ['sale', 'send', '--api-key', program.apiKey, '--customer-key', 'user_1', '--amount-cents', '100', '--transaction-id', 't1', '--test'];
  expect(await runJson(testSale, env)).toEqual({
    success: true, message: 'Test sale recorded; no commission created', data: { eventId: 1, programId: 1, test_mode: true },
  });
  expect((await runCli(testSale, env)).stdout).toBe('Transaction t1 was already recorded as test sale 1; nothing changed.\n');
  const retired = await runCli(['sale', 'send', '--api-key', key.apiKey, '--customer-key', 'user_1', '--amount-cents', '100', '--transaction-id', 'x'], env);
  expect(retired.code).toBe(1);
  expect(retired.stderr).toContain('api_key_rotation_required');
  return program;
}

// Each of the first two tests starts about 25 CLI processes: ~20 s alone, minutes on a loaded 2-core machine.
const MANY_PROCESSES = 180_000;

describe('the partnerkit CLI as a process', () => {
  test('every command works on a data dir with no server (in-process), with the pinned clock', async () => {
    const dataDir = tempDataDir();
    const env = cliEnv(dataDir, { PARTNERKIT_NOW: NOW });
    await provisionAndTrack(env);
    expect(statSync(join(dataDir, 'admin-token')).mode & 0o777).toBe(0o600);
    expect(existsSync(join(dataDir, 'partnerkit.duckdb'))).toBe(TEST_ENGINE === 'duckdb');
  }, MANY_PROCESSES);

  test('every command works through a running server on the same data dir; SIGTERM shuts it down cleanly', async () => {
    const dataDir = tempDataDir();
    const server = await startServe(dataDir, [], { PARTNERKIT_NOW: NOW });
    await until(() => server.stderr().includes('No programs yet'));
    expect(server.stderr()).toContain('partnerkit program create');
    await provisionAndTrack(cliEnv(dataDir, { PARTNERKIT_NOW: NOW }));

    // Explicit --url reaches the same server.
    const viaUrl = await runJson(['program', 'list', '--url', server.url], cliEnv(tempDataDir(), { PARTNERKIT_ADMIN_TOKEN: (await import('node:fs')).readFileSync(join(dataDir, 'admin-token'), 'utf8').trim() }));
    expect(viaUrl).toHaveLength(1);

    expect(await server.stop('SIGTERM')).toBe(0);
    expect(existsSync(join(dataDir, 'server.json'))).toBe(false);
    // Everything acknowledged while serving is on disk for the next process.
    const keys = await runJson(['key', 'list', '--program', '1'], cliEnv(dataDir));
    expect(keys).toHaveLength(3);
  }, MANY_PROCESSES);

  test('a second serve on a data dir whose DuckDB file is held exits non-zero at once, naming the running server', async () => {
    const dataDir = tempDataDir();
    const duckdb = { PARTNERKIT_DATABASE_URL: '' }; // PostgreSQL takes a second server: docs/store-engines.md#several-instances-on-postgresql
    const server = await startServe(dataDir, [], duckdb);
    const second = await runCli(['serve', '--port', '0'], cliEnv(dataDir, duckdb));
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain(server.url);
  });

  test('a wrong admin token against a server is a clear 401', async () => {
    const dataDir = tempDataDir();
    const server = await startServe(dataDir);
    const result = await runCli(['program', 'list', '--url', server.url], cliEnv(tempDataDir(), { PARTNERKIT_ADMIN_TOKEN: 'pka_wrong' }));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('unauthorized');
  });

  test('input errors of the API come back with their code and a non-zero exit', async () => {
    const env = cliEnv(tempDataDir());
    const result = await runCli(['click', 'record', '--ref', 'nope', '--json'], env);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout).error).toMatchObject({ code: 'not_found', status: 404 });
  });
});
