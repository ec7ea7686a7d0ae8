import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cliEnv, runCli, startServe, tempDataDir } from '../helpers/cli.js';
import { factories, httpFactoryApi } from '../helpers/factories.js';
import { expectErrorEnvelope } from './support.js';

/**
 * Slow clients (docs/tracking.md#connections-and-timeouts): a real `serve` with short timeouts, 2,000 connections that
 * never finish their request — half trickle their headers a byte at a time, half stop in the middle
 * of the body — while a second client records sales and asks /healthz. The second client is
 * answered promptly; the server answers each slow one 408 and closes it once its deadline passes.
 */
const SLOW = 2_000;
const HEADERS_MS = 6_000;
const REQUEST_MS = 8_000;
const KEEP_ALIVE_MS = 1_000;
/** How much later than its deadline a connection may be closed: Node checks the deadlines every second here. */
const LATE_MS = 1_000 + 1_500;

/**
 * Both processes hold one descriptor per connection (2,000 here, 2,000 in `serve`, which inherits
 * this limit). A soft limit below that is raised up to the hard limit, which needs no privilege;
 * a hard limit below it fails the test with the reason rather than with EMFILE.
 */
function ensureOpenFiles(needed: number): void {
  const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'))!;
  const [soft, hard] = line.split(/\s+/).slice(3, 5).map((v) => (v === 'unlimited' ? Number.POSITIVE_INFINITY : Number(v)));
  if (soft >= needed) return;
  if (hard < needed) throw new Error(`this test needs ${needed} open files per process; the hard limit (ulimit -Hn) is ${hard}`);
  execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${needed}:${hard === Number.POSITIVE_INFINITY ? 'unlimited' : hard}`]);
}

type SlowConnection = { kind: 'headers' | 'body'; socket: Socket; connectedAt: number; closedAt?: number; received: string };

function open(port: number, kind: SlowConnection['kind']): Promise<SlowConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const connection: SlowConnection = { kind, socket, connectedAt: 0, received: '' };
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => (connection.received += text));
    socket.on('error', reject);
    socket.on('close', () => (connection.closedAt = performance.now()));
    socket.once('connect', () => {
      connection.connectedAt = performance.now();
      if (kind === 'headers') {
        socket.write('POST /api/v1/track/click HTTP/1.1\r\nhost: localhost\r\nx-slow: ');
        // One more byte of a header that never ends, every half second.
        const timer = setInterval(() => socket.writable && socket.write('a'), 500);
        socket.on('close', () => clearInterval(timer));
      } else {
        socket.write('POST /api/v1/track/click HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"ref":"');
      }
      resolve(connection);
    });
  });
}

async function timed<T>(call: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await call();
  return { value, ms: performance.now() - started };
}

describe('slow clients cannot hold the server', () => {
  test(`${SLOW} slow connections stay open while another client is served, then each is answered 408 and closed in time`, { timeout: 90_000 }, async () => {
    ensureOpenFiles(2 * SLOW + 1_024);
    const dir = tempDataDir();
    // The slow requests all come from 127.0.0.1: the click endpoint's per-address limit must not answer them first.
    const server = await startServe(dir, [
      '--headers-timeout-ms', String(HEADERS_MS), '--request-timeout-ms', String(REQUEST_MS), '--keep-alive-timeout-ms', String(KEEP_ALIVE_MS),
      '--click-rate-limit', String(10 * SLOW),
    ]);
    const port = Number(new URL(server.url).port);
    const api = factories(httpFactoryApi(server.url, readFileSync(join(dir, 'admin-token'), 'utf8').trim()));
    const program = await api.program();
    await api.lead(program, 'cust_1');

    const slow: SlowConnection[] = [];
    try {
      // Opened in batches, so the listen backlog never overflows.
      for (let i = 0; i < SLOW; i += 100) {
        slow.push(...(await Promise.all(Array.from({ length: 100 }, (_, j) => open(port, (i + j) % 2 === 0 ? 'headers' : 'body')))));
      }
      const firstDeadline = slow[0].connectedAt + HEADERS_MS;

      // The second client, while every slow connection is open.
      const calls: Array<{ status: number; ms: number }> = [];
      for (let i = 0; i < 20; i++) {
        const sale = await timed(() => api.sale(program, { transaction_id: `in_${i}` }));
        expect(sale.value).toMatchObject({ success: true, sale_id: expect.any(Number) });
        calls.push({ status: 200, ms: sale.ms });
        const health = await timed(() => fetch(`${server.url}/healthz`));
        calls.push({ status: health.value.status, ms: health.ms });
      }
      expect(performance.now(), 'the second client finished before the first deadline').toBeLessThan(firstDeadline);
      expect(slow.filter((c) => c.closedAt !== undefined).length, 'slow connections closed early').toBe(0);
      expect(calls.every((c) => c.status === 200)).toBe(true);
      const ms = calls.map((c) => c.ms).sort((a, b) => a - b);
      expect(ms[Math.floor(ms.length / 2)], `median of ${JSON.stringify(ms.map(Math.round))}`).toBeLessThan(250);
      expect(ms.at(-1), `slowest of ${JSON.stringify(ms.map(Math.round))}`).toBeLessThan(1_500);

      // Every slow connection is closed by the server, after its deadline and not much later.
      const deadline = performance.now() + REQUEST_MS + LATE_MS + 5_000;
      while (slow.some((c) => c.closedAt === undefined) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(slow.filter((c) => c.closedAt === undefined).length, 'still open').toBe(0);
      for (const [kind, limit] of [['headers', HEADERS_MS], ['body', REQUEST_MS]] as const) {
        const lifetimes = slow.filter((c) => c.kind === kind).map((c) => c.closedAt! - c.connectedAt).sort((a, b) => a - b);
        expect(lifetimes[0], `${kind}: shortest`).toBeGreaterThanOrEqual(limit - 100);
        expect(lifetimes.at(-1), `${kind}: longest`).toBeLessThanOrEqual(limit + LATE_MS);
      }
      // Each was told why, in the platform envelope.
      const answers = new Set(slow.map((c) => c.received));
      expect(answers.size).toBe(1);
      const [answer] = answers;
      expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(expectErrorEnvelope(408, answer.split('\r\n\r\n')[1]).code).toBe('request_timeout');

      // The server is as it was, and its log tells each timeout apart from a failure: a stalled body
      // is cut off under Fastify's reader, which must not count as a 500.
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      // The log reaches the pipe after the sockets close: wait (bounded) for every timeout's line.
      const logLines = () => server.stdout().trim().split('\n').map((line) => JSON.parse(line) as { level: string; msg: string; code?: string; status?: number | null });
      const logDeadline = performance.now() + 10_000;
      const logged = (lines: ReturnType<typeof logLines>) =>
        lines.filter((line) => line.msg === 'client error').length + lines.filter((line) => line.msg === 'request' && line.status === null).length;
      while (logged(logLines()) < SLOW + SLOW / 2 && performance.now() < logDeadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      const log = logLines();
      expect(log.filter((line) => line.msg === 'client error' && line.code === 'request_timeout')).toHaveLength(SLOW);
      expect(log.filter((line) => line.msg === 'request' && line.status === null)).toHaveLength(SLOW / 2);
      expect(log.filter((line) => line.level !== 'info')).toEqual([]);
    } finally {
      for (const connection of slow) connection.socket.destroy();
    }
    expect(await server.stop()).toBe(0);
  });

  test('an idle keep-alive connection is closed after the keep-alive timeout (Node adds a 1 s grace to what it advertises)', { timeout: 30_000 }, async () => {
    const server = await startServe(tempDataDir(), ['--keep-alive-timeout-ms', String(KEEP_ALIVE_MS)]);
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    let received = '';
    let answeredAt = 0;
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(performance.now())));
    socket.on('data', (chunk) => {
      received += chunk;
      answeredAt ||= performance.now();
    });
    socket.write('GET /healthz HTTP/1.1\r\nhost: localhost\r\n\r\n');
    const idle = (await closed) - answeredAt;
    expect(received).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*keep-alive: timeout=1\r\n[\s\S]*\{"status":"ok","now":"[^"]+"\}$/i);
    expect(idle).toBeGreaterThanOrEqual(KEEP_ALIVE_MS);
    expect(idle).toBeLessThan(KEEP_ALIVE_MS + 1_000 + 700);
  });

  test('--headers-timeout-ms above --request-timeout-ms is refused at start', async () => {
    const result = await runCli(['serve', '--port', '0', '--headers-timeout-ms', '5000', '--request-timeout-ms', '4000'], cliEnv(tempDataDir()));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--headers-timeout-ms cannot exceed --request-timeout-ms');
  });
});
