import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { DuckDBStore } from '../../src/store/duckdb-store.js';
import { cliEnv, runCli, runJson, startServe, tempDataDir, until } from '../helpers/cli.js';

// Runs against dist/: `npm run build` first.

/** A port something else listens on, released when the test finishes. */
async function busyPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as { port: number }).port;
}

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('serve: start-up errors are one line and exit 2, with nothing created (docs/operations.md#start-up-errors)', () => {
  test('a port in use: named with the flag to change, before the data dir is created', async () => {
    const port = await busyPort();
    const dataDir = join(tempDataDir(), 'data');
    const result = await runCli(['serve', '--port', String(port)], cliEnv(dataDir));
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `Error: Port ${port} on 127.0.0.1 is already in use: stop what listens there, or choose another port with --port (or PARTNERKIT_PORT)\n`,
    });
    expect(existsSync(dataDir)).toBe(false);
  });

  test.each([
    ['a file where the data dir should be', '', 'a file is in the way (not a directory)'],
    ['a file where one of its parents should be', 'data', 'a file is in the way of one of its parent directories'],
  ])('%s: the path and the reason', async (_, below, reason) => {
    const file = join(tempDataDir(), 'file');
    writeFileSync(file, 'not a directory');
    const dataDir = below ? join(file, below) : file;
    const result = await runCli(['serve', '--port', '0', '--data-dir', dataDir], cliEnv(tempDataDir()));
    expect(result).toEqual({ code: 2, stdout: '', stderr: `Error: Cannot use the data dir ${dataDir}: ${reason} (--data-dir or PARTNERKIT_DATA_DIR names another)\n` });
  });

  test('a database another process holds: the data dir and that process, and no server.json', async () => {
    const dataDir = tempDataDir();
    const store = await DuckDBStore.open(join(dataDir, 'partnerkit.duckdb'));
    onTestFinished(() => store.close());
    const result = await runCli(['serve', '--port', '0'], cliEnv(dataDir, { PARTNERKIT_DATABASE_URL: '' }));
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `Error: The data dir ${dataDir} is locked by another process (pid ${process.pid}): only one process at a time can open its database\n`,
    });
    expect(existsSync(join(dataDir, 'server.json'))).toBe(false);
  });
});

describe('serve: configuration from the environment (docs/operations.md#configuration)', () => {
  test.each(['PORT', 'PARTNERKIT_PORT'])('%s is the port it listens on', async (variable) => {
    const port = await freePort();
    const server = await startServe(tempDataDir(), [], { [variable]: String(port) });
    expect(server.url).toBe(`http://127.0.0.1:${port}`);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  test('PARTNERKIT_LOG_LEVEL=warn leaves requests without a line, as --log-level warn does', async () => {
    const server = await startServe(tempDataDir(), [], { PARTNERKIT_LOG_LEVEL: 'warn' });
    // Its signal handlers are set once it has printed what to do next.
    await until(() => server.stderr().includes('No programs yet'));
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const code = await server.stop();
    expect({ code, stdout: server.stdout() }, server.stderr()).toEqual({ code: 0, stdout: '' });
  });
});

describe('serve: the root, missing files and their log lines (docs/operations.md#the-pages-root)', () => {
  test('/, an unknown route, a dotfile and a bad Range each answer in the envelope and have their request line; nothing is logged as an error', async () => {
    const server = await startServe(tempDataDir());
    const asset = /\/assets\/[^"]+\.js/.exec(await (await fetch(`${server.url}/dashboard`)).text())![0];
    const answers = [];
    for (const [path, headers] of [['/', {}], ['/nowhere', {}], ['/assets/.env', {}], [asset, { range: 'bytes=99999999-' }]] as const) {
      const response = await fetch(`${server.url}${path}`, { headers, redirect: 'manual' });
      answers.push([path, response.status, response.status === 302 ? response.headers.get('location') : ((await response.json()) as { error: { code: string } }).error.code]);
    }
    expect(answers).toEqual([
      ['/', 302, '/dashboard'],
      ['/nowhere', 404, 'not_found'],
      ['/assets/.env', 404, 'not_found'],
      [asset, 416, 'range_not_satisfiable'],
    ]);
    const lines = () => server.stdout().split('\n').filter(Boolean).map((line) => JSON.parse(line));
    await until(() => lines().filter((line) => line.msg === 'request').length === 5);
    expect(lines().map(({ level, msg, route, status }) => ({ level, msg, route, status }))).toEqual([
      { level: 'info', msg: expect.stringMatching(/^Server listening/), route: undefined, status: undefined },
      { level: 'info', msg: 'request', route: '/dashboard', status: 200 },
      { level: 'info', msg: 'request', route: '/', status: 302 },
      { level: 'info', msg: 'request', route: null, status: 404 },
      { level: 'info', msg: 'request', route: null, status: 404 },
      { level: 'info', msg: 'request', route: '/assets/*', status: 416 },
    ]);
  });
});

describe('backup and restore of a DuckDB data dir (docs/operations.md#backup-and-restore)', () => {
  /** These tests are about the DuckDB file: they run on DuckDB whatever the test engine; one clock for every command. */
  const env = (dataDir: string) => cliEnv(dataDir, { PARTNERKIT_DATABASE_URL: '', PARTNERKIT_NOW: '2026-03-10T15:00:00.000Z' });

  /** What a data dir answers: reports, lists and exports, each as the CLI prints it with --json (exports as their files). */
  async function answers(dataDir: string, url?: string): Promise<unknown[]> {
    const where = url ? ['--url', url] : [];
    const found: unknown[] = [];
    for (const args of [
      ['program', 'list'],
      ['key', 'list', '--program', '1'],
      ['report', 'performance', '1', '--period', 'all'],
      ['report', 'partners', '1', '--period', 'all'],
      ['commission', 'list', '--program', '1'],
      ['payout', 'preview', '--program', '1'],
      ['payout', 'list', '--program', '1'],
      ['webhook', 'events', '--program', '1'],
    ]) {
      found.push(await runJson([...args, ...where], env(dataDir)));
    }
    for (const table of ['clicks', 'sales', 'commissions']) {
      const file = join(tempDataDir(), `${table}.csv`);
      await runJson(['export', '1', '--table', table, '--out', file, ...where], env(dataDir));
      found.push(readFileSync(file, 'utf8'));
    }
    return found;
  }

  /** Every entry of a data dir with its permission bits. */
  const modes = (root: string) => [`. ${(statSync(root).mode & 0o777).toString(8)}`, ...readdirSync(root).sort().map((f) => `${f} ${(statSync(join(root, f)).mode & 0o777).toString(8)}`)];

  test('with no server: the restored data dir answers every report, list and export as the original, with its admin token and modes', async () => {
    const original = tempDataDir();
    await runJson(['demo', '--days', '20', '--clicks', '2000'], env(original));
    const file = join(tempDataDir(), 'demo.backup');
    expect(await runJson(['backup', '--out', file], env(original))).toEqual({ file, bytes: statSync(file).size });
    const restored = join(tempDataDir(), 'restored');
    expect(await runJson(['restore', '--from', file, '--data-dir', restored], env(original))).toEqual({ dataDir: restored, takenAt: '2026-03-10T15:00:00.000Z' });
    expect(modes(restored)).toEqual(['. 700', 'admin-token 600', 'partnerkit.duckdb 600']);
    expect(readFileSync(join(restored, 'admin-token'), 'utf8')).toBe(readFileSync(join(original, 'admin-token'), 'utf8'));
    const before = await answers(original);
    expect((before[2] as { metrics: { totalSales: number } }).metrics.totalSales).toBeGreaterThan(0);
    expect(await answers(restored)).toEqual(before);
  }, 300_000);

  test('through a running server: the snapshot as it was when taken, writes after it not in it', async () => {
    const original = tempDataDir();
    await runJson(['demo', '--days', '20', '--clicks', '2000'], env(original));
    const server = await startServe(original, [], { PARTNERKIT_DATABASE_URL: '', PARTNERKIT_NOW: '2026-03-10T15:00:00.000Z' });
    const before = await answers(original, server.url);
    const file = join(tempDataDir(), 'live.backup');
    await runJson(['backup', '--out', file], env(original));
    await runJson(['program', 'create', '--name', 'After the backup'], env(original));
    expect(await server.stop()).toBe(0);
    const restored = join(tempDataDir(), 'restored');
    await runJson(['restore', '--from', file, '--data-dir', restored], env(original));
    expect(await answers(restored)).toEqual(before);
    expect((await runJson(['program', 'list'], env(original))).length).toBe(2);
  }, 300_000);

  test('restore refuses a data dir that is not empty, and a file that is not a backup, changing nothing', async () => {
    const dataDir = tempDataDir();
    await runJson(['program', 'create', '--name', 'Acme'], env(dataDir));
    const file = join(tempDataDir(), 'acme.backup');
    await runJson(['backup', '--out', file], env(dataDir));
    const target = tempDataDir();
    writeFileSync(join(target, 'notes.txt'), 'mine');
    expect(await runCli(['restore', '--from', file, '--data-dir', target], env(dataDir))).toEqual({
      code: 2,
      stdout: '',
      stderr: `Error: The data dir ${target} is not empty: restore fills a new data dir (name one with --data-dir)\n`,
    });
    expect(readdirSync(target)).toEqual(['notes.txt']);
    const empty = join(tempDataDir(), 'new');
    const notBackup = await runCli(['restore', '--from', join(target, 'notes.txt'), '--data-dir', empty, '--json'], env(dataDir));
    expect(notBackup.code).toBe(2);
    expect(JSON.parse(notBackup.stdout).error).toMatchObject({ code: 'not_a_backup', message: expect.stringMatching(new RegExp(`^${join(target, 'notes.txt')} is not a partnerkit backup`)) });
    expect(readdirSync(empty)).toEqual([]);
  }, 60_000);

  test.each([
    ['backup', ['backup', '--out', 'x.backup']],
    ['restore', ['restore', '--from', 'x.backup', '--data-dir', 'new']],
  ])('%s on PostgreSQL: refused, pointing to pg_dump and pg_restore', async (_, args) => {
    const result = await runCli([...args, '--database-url', 'postgres://partnerkit@127.0.0.1:9/partnerkit', '--json'], cliEnv(tempDataDir()));
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({
      error: {
        code: 'unsupported_engine',
        message: 'The data is in PostgreSQL, not in the data dir: back it up with pg_dump (pg_dump -Fc -f partnerkit.dump "$PARTNERKIT_DATABASE_URL") and restore it with pg_restore',
        status: null,
        details: null,
      },
    });
  });
});
