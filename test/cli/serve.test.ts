import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { cliEnv, runCli, runJson, startServe, tempDataDir, until } from '../helpers/cli.js';

/** These tests are about the DuckDB file and its WAL in the data dir: they run on DuckDB whatever the test engine. */
const DUCKDB = { PARTNERKIT_DATABASE_URL: '' };

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

describe('files in the data dir (docs/api.md#data-dir)', () => {
  test('a command creates the data dir 0700 and every file in it 0600', async () => {
    permissiveUmask();
    const dataDir = join(tempDataDir(), 'data');
    await runJson(['program', 'create', '--name', 'Acme'], cliEnv(dataDir, DUCKDB));
    expect(modes(dataDir)).toEqual(['. 700', 'admin-token 600', 'partnerkit.duckdb 600']);
  });

  test('serve: the database, its WAL and server.json are 0600 while it runs, and the files left after it stops too', async () => {
    permissiveUmask();
    const dataDir = join(tempDataDir(), 'data');
    const server = await startServe(dataDir, [], DUCKDB);
    // A write through the server: DuckDB keeps it in the WAL until the checkpoint at shutdown.
    await runJson(['program', 'create', '--name', 'Acme'], cliEnv(dataDir, DUCKDB));
    expect(modes(dataDir)).toEqual(['. 700', 'admin-token 600', 'partnerkit.duckdb 600', 'partnerkit.duckdb.wal 600', 'server.json 600']);
    expect(await server.stop()).toBe(0);
    expect(modes(dataDir)).toEqual(['. 700', 'admin-token 600', 'partnerkit.duckdb 600']);
  });
});

describe('serve: the request log on stdout (docs/tracking.md#request-log)', () => {
  test('one JSON line per request when stdout is not a terminal', async () => {
    const server = await startServe(tempDataDir());
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/nowhere`)).status).toBe(404);
    const requests = () => server.stdout().split('\n').filter((line) => line.includes('"msg":"request"'));
    await until(() => requests().length === 2);
    expect(requests().map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ level: 'info', method: 'GET', route: '/healthz', status: 200, requestId: expect.any(String), durationMs: expect.any(Number) }),
      expect.objectContaining({ level: 'info', method: 'GET', route: null, status: 404, requestId: expect.any(String), durationMs: expect.any(Number) }),
    ]);
    // Every line, the startup one included, is one JSON document.
    for (const line of server.stdout().trim().split('\n')) expect(() => JSON.parse(line), line).not.toThrow();
  });

  test('--log-level warn: requests leave no line', async () => {
    const server = await startServe(tempDataDir(), ['--log-level', 'warn']);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/nowhere`)).status).toBe(404);
    expect(await server.stop()).toBe(0);
    expect(server.stdout()).toBe('');
  });
});

describe('serve: stopping (docs/exports.md#shutdown)', () => {
  test('SIGTERM with an export whose client stopped reading: the answer is closed at --shutdown-timeout, its file removed, exit 0', { timeout: 90_000 }, async () => {
    const dataDir = tempDataDir();
    // About 9 MB of clicks as CSV: more than a connection's buffers hold, so the server's stream waits for the reader.
    await runJson(['demo', '--days', '3', '--clicks', '100000'], cliEnv(dataDir));
    const server = await startServe(dataDir, ['--shutdown-timeout', '1']);
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    onTestFinished(() => void socket.destroy());
    socket.on('error', () => undefined);
    const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    socket.write(`GET /api/programs/1/export?table=clicks HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${adminToken}\r\n\r\n`);
    const head = await new Promise<Buffer>((resolve) => socket.once('data', resolve));
    socket.pause();
    expect(head.toString('latin1')).toMatch(/^HTTP\/1.1 200 OK/);
    const exportsDir = join(dataDir, 'exports');
    expect(readdirSync(exportsDir)).toHaveLength(1);
    // Well before the 30 s a stalled reader is given: the shutdown timeout closes it.
    const exited = await Promise.race([server.stop('SIGTERM'), new Promise((resolve) => setTimeout(() => resolve('still running'), 20_000))]);
    expect(exited).toBe(0);
    expect(readdirSync(exportsDir)).toEqual([]);
    expect(server.stderr()).toContain('SIGTERM: letting requests finish (at most 1 s), then closing the database');
    expect(server.stderr()).toContain('stopped');
  });

  test('at start, the export files a killed server left in the data dir are removed', async () => {
    const dataDir = tempDataDir();
    const leftover = join(dataDir, 'exports', `${2 ** 22 + 1}-0a1b2c`); // above Linux's largest pid: a process no longer running
    mkdirSync(leftover, { recursive: true });
    writeFileSync(join(leftover, 'export.csv'), 'id\n1\n');
    const server = await startServe(dataDir);
    expect(readdirSync(join(dataDir, 'exports'))).toEqual([]);
    expect(await server.stop()).toBe(0);
  });
});

describe('serve --trust-proxy (docs/api.md#rate-limits)', () => {
  test('bare, before another flag, it reads X-Forwarded-For from whatever peer connects, as before it took a value', async () => {
    const dataDir = tempDataDir();
    const server = await startServe(dataDir, ['--trust-proxy', '--click-rate-limit', '1']);
    const env = cliEnv(dataDir);
    await runJson(['program', 'create', '--name', 'Acme'], env);
    await runJson(['partner', 'create', '--name', 'Jane', '--email', 'jane@example.com'], env);
    const { refCode } = await runJson(['partner', 'enroll', '--program', '1', '--partner', '1'], env);
    const clickFrom = async (forwardedFor: string) =>
      (await fetch(`${server.url}/api/v1/track/click`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': forwardedFor },
        body: JSON.stringify({ ref: refCode }),
      })).status;
    expect(await clickFrom('198.51.100.1')).toBe(200);
    expect(await clickFrom('198.51.100.2')).toBe(200);
    expect(await clickFrom('198.51.100.1')).toBe(429);
  });

  test('a value that is not addresses or CIDR ranges: exit 2 naming it, nothing started', async () => {
    const dataDir = join(tempDataDir(), 'data');
    const result = await runCli(['serve', '--port', '0', '--trust-proxy', '10.0.0.0/8,10.0.0.0/33'], cliEnv(dataDir));
    expect(result.code).toBe(2);
    expect(result.stderr.replace(/\s*›\s+/g, ' ')).toContain(
      'Error: Parsing --trust-proxy: "10.0.0.0/33": not an IP address or CIDR range (give true, false, or addresses and ranges such as 10.0.0.0/8,127.0.0.1)',
    );
    expect(existsSync(dataDir)).toBe(false);
  });
});
