import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DuckDBStore } from '../../src/store/duckdb-store.js';
import { cliEnv, runCli, tempDataDir } from '../helpers/cli.js';

// Runs against dist/: `npm run build` first.

/** The command lines a person gets wrong, and what oclif's parser says of each (docs/cli.md#how-commands-reach-the-service). */
const USAGE_ERRORS: Array<[string, string[], string]> = [
  ['exclusive flags', ['report', 'performance', '1', '--csv'], '--json=true cannot also be provided when using --csv'],
  ['a missing required flag', ['click', 'record'], 'Missing required flag ref'],
  ['a misspelt flag', ['report', 'performance', '1', '--perod', '30d'], 'Nonexistent flag: --perod'],
  ['a missing argument', ['report', 'performance'], 'Missing 1 required arg: programId (program id)'],
  ['a value outside the options', ['report', 'performance', '1', '--period', '1y'], 'Expected --period=1y to be one of: 7d, 30d, 90d, all'],
  ['a flag that is not an integer', ['key', 'list', '--program', 'abc'], 'Parsing --program: Expected an integer but received: abc'],
  ['one flag of a pair', ['report', 'performance', '1', '--from', '2026-03-01'], 'All of the following must be provided when using --from: --to'],
  ['neither of two flags', ['sale', 'send', '--api-key', 'pk_live_x', '--amount-cents', '5', '--transaction-id', 't'], 'At least one of the following must be provided: --click-id, --coupon-code, --customer-key'],
  ['an argument too many', ['click', 'record', '--ref', 'a', 'b'], 'Unexpected argument: b'],
];

describe('failures with --json: exactly one error document on stdout', () => {
  test.each(USAGE_ERRORS)('%s: invalid_usage, exit 2', async (_, args, message) => {
    const result = await runCli([...args, '--json'], cliEnv(tempDataDir()));
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({ error: { code: 'invalid_usage', message, status: null, details: null } });
    expect(result.stderr).toBe('');
  });

  test('an API error: its code, status, message and details, exit 1', async () => {
    const result = await runCli(['click', 'record', '--ref', 'nope', '--json'], cliEnv(tempDataDir()));
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({ error: { code: 'not_found', message: 'No active referral link with ref nope', status: 404, details: null } });
  });

  test('a server that cannot be reached: network_error, exit 1', async () => {
    const result = await runCli(['program', 'list', '--url', 'http://127.0.0.1:9', '--json'], cliEnv(tempDataDir()));
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      error: { code: 'network_error', message: 'Could not reach http://127.0.0.1:9: connect ECONNREFUSED 127.0.0.1:9', status: null, details: null },
    });
  });

  test('a data dir whose DuckDB file another process holds: data_dir_locked, exit 2', async () => {
    const dataDir = tempDataDir();
    const store = await DuckDBStore.open(join(dataDir, 'partnerkit.duckdb'));
    try {
      const result = await runCli(['program', 'list', '--json'], cliEnv(dataDir, { PARTNERKIT_DATABASE_URL: '' }));
      expect(result.code).toBe(2);
      const { error } = JSON.parse(result.stdout);
      expect(error).toMatchObject({ code: 'data_dir_locked', status: null, details: null });
      expect(error.message).toMatch(new RegExp(`^The data dir ${dataDir} is locked by another process`));
    } finally {
      await store.close();
    }
  });

  test('a PostgreSQL database that cannot be reached: database_unreachable, exit 2, the password not shown', async () => {
    const result = await runCli(['program', 'list', '--json', '--database-url', 'postgres://partnerkit:s3cret@127.0.0.1:9/partnerkit'], cliEnv(tempDataDir()));
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({
      error: {
        code: 'database_unreachable',
        message: 'Cannot reach the PostgreSQL database at postgres://partnerkit:***@127.0.0.1:9/partnerkit: connect ECONNREFUSED 127.0.0.1:9',
        status: null,
        details: null,
      },
    });
    expect(result.stdout + result.stderr).not.toContain('s3cret');
  });

  test('any other failure (an unreadable PARTNERKIT_NOW): command_failed, exit 1', async () => {
    const result = await runCli(['program', 'list', '--json'], cliEnv(tempDataDir(), { PARTNERKIT_NOW: 'yesterday' }));
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      error: { code: 'command_failed', message: 'PARTNERKIT_NOW is not an ISO 8601 instant: yesterday', status: null, details: null },
    });
  });
});

describe('failures without --json: a short message on stderr', () => {
  test.each(USAGE_ERRORS.slice(1, 5))('%s: the message and where help is, exit 2', async (_, args, message) => {
    const result = await runCli(args, cliEnv(tempDataDir()));
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const command = args.filter((arg) => /^[a-z]+$/.test(arg)).slice(0, 2).join(' ');
    expect(result.stderr.split('\n').map((line) => line.replace(/^ ›\s+/, '')).filter(Boolean)).toEqual([
      `Error: ${message}`,
      `See more help with partnerkit ${command} --help`,
    ]);
  });

  test('an API error: its code and message, exit 1', async () => {
    const result = await runCli(['click', 'record', '--ref', 'nope'], cliEnv(tempDataDir()));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Error: not_found: No active referral link with ref nope');
  });
});
