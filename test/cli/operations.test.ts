import { existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { DuckDBStore } from '../../src/store/duckdb-store.js';
import { cliEnv, runCli, startServe, tempDataDir, until } from '../helpers/cli.js';

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
      answers.push([path, response.status, response.status === 302 ? response.headers.get('location') : (await response.json()).error.code]);
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
