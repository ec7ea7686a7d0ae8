import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';

export const BIN = resolve(import.meta.dirname, '../../bin/run.js');

export type Summary = { median: number; min: number; max: number; runs: number[] };

export function summarize(runs: number[]): Summary {
  const sorted = [...runs].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)], min: sorted[0], max: sorted.at(-1)!, runs };
}

export function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `partnerkit-bench-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A fresh schema of the PostgreSQL database at `databaseUrl`: its URL (the schema first on the search path) and how to drop it. */
export async function postgresSchema(databaseUrl: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `bench_${prefix}_${process.pid}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    },
  };
}

/** The n-th of 2^24 distinct client addresses (10.0.0.0/8). */
export const visitorAddress = (n: number) => `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;

/** `serve` flags that keep the per-key and per-address limits out of a throughput run (one client address, 127.0.0.1). */
export const NO_LIMITS = ['--rate-limit', '100000000', '--click-rate-limit', '100000000'];

export type Served = { url: string; pid: number; child: ChildProcess; stop(): Promise<void> };

/** The CPU controller's folder: cgroup v1's cpu hierarchy, else the unified (v2) one when it offers cpu. */
function cpuControllerRoot(): { root: string; v1: boolean } | undefined {
  if (existsSync('/sys/fs/cgroup/cpu/cpu.cfs_quota_us')) return { root: '/sys/fs/cgroup/cpu', v1: true };
  const controllers = '/sys/fs/cgroup/cgroup.subtree_control';
  if (existsSync(controllers) && readFileSync(controllers, 'utf8').split(/\s+/).includes('cpu')) return { root: '/sys/fs/cgroup', v1: false };
  return undefined;
}

/** Why processes cannot be held to a CPU share here, or undefined when they can (root, a cgroup CPU controller). */
export function cpuCapUnavailable(): string | undefined {
  const controller = cpuControllerRoot();
  if (!controller) return 'no cgroup CPU controller';
  try {
    const probe = join(controller.root, `partnerkit-bench-probe-${process.pid}`);
    mkdirSync(probe);
    rmdirSync(probe);
    return undefined;
  } catch (error) {
    return `cannot make a cgroup: ${(error as Error).message}`;
  }
}

/**
 * Holds a process (all its threads) to `percent` % of one core with a cgroup of its own, as if it had
 * a small machine to itself; the returned function removes the cgroup once the process has ended.
 */
export function capCpu(pid: number, percent: number): () => void {
  const { root, v1 } = cpuControllerRoot()!;
  const group = join(root, `partnerkit-bench-${pid}`);
  mkdirSync(group);
  const period = 10_000; // µs: a short period spreads the share evenly, rather than 40 ms on then 60 ms frozen
  const quota = Math.round((period * percent) / 100);
  if (v1) {
    writeFileSync(join(group, 'cpu.cfs_period_us'), String(period));
    writeFileSync(join(group, 'cpu.cfs_quota_us'), String(quota));
  } else {
    writeFileSync(join(group, 'cpu.max'), `${quota} ${period}`);
  }
  writeFileSync(join(group, 'cgroup.procs'), String(pid));
  return () => rmdirSync(group);
}

/** A real `partnerkit serve` on a data dir; resolves when its discovery file names it. */
export async function serve(dataDir: string, args: string[] = [], env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], {
    env: { ...process.env, PARTNERKIT_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (c) => (stderr += c));
  const file = join(dataDir, 'server.json');
  const deadline = Date.now() + 120_000;
  while (!existsSync(file) || !readFileSync(file, 'utf8').includes(`"pid":${child.pid}`)) {
    if (child.exitCode !== null) throw new Error(`serve exited: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`serve did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const { url } = JSON.parse(readFileSync(file, 'utf8')) as { url: string };
  return {
    url,
    pid: child.pid!,
    child,
    stop: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

export type LoadResult = { rps: number; p50: number; p99: number; ok: number; redirects: number; non2xx: number; fiveHundreds: number; errors: number };

/** A request of a mixed load: its own path, body and headers. */
export type Mixed = { path: string; body: string; headers?: Record<string, string> };

/** autocannon as a library: `connections` clients for `seconds`, bodies built per request. */
export async function load(options: {
  url: string;
  path: string;
  connections: number;
  seconds: number;
  headers?: Record<string, string>;
  body?: () => string;
  /** Extra headers computed from each body (a webhook signature, a client address). */
  headersFor?: (body: string) => Record<string, string>;
  /** Each request chosen by this instead (a mix of endpoints). */
  mixed?: () => Mixed;
  method?: 'GET' | 'POST';
  /** Requests per second over all connections at most (a steady load instead of as fast as it goes). */
  rate?: number;
}): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url + options.path,
    connections: options.connections,
    ...(options.rate === undefined ? {} : { overallRate: options.rate }),
    duration: options.seconds,
    method: options.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    requests: [
      {
        setupRequest: (request) => {
          if (options.mixed) {
            const next = options.mixed();
            return { ...request, path: next.path, body: next.body, headers: { ...request.headers, ...next.headers } };
          }
          if (!options.body && !options.headersFor) return request;
          const body = options.body?.();
          return { ...request, ...(body === undefined ? {} : { body }), headers: { ...request.headers, ...options.headersFor?.(body ?? '') } };
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    redirects: result['3xx'],
    non2xx: result.non2xx,
    fiveHundreds: result['5xx'],
    errors: result.errors,
  };
}

/** Ceiling: the same path answered by a bare Fastify route (bare-server.ts) in its own process, `runs` × 10 s. */
export async function bareFastifyRuns(path: string, body: string, connections: number, runs: number): Promise<number[]> {
  const child = spawn(process.execPath, [resolve(import.meta.dirname, 'bare-server.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((done) => child.stdout!.once('data', (d) => done(String(d).trim())));
  try {
    const rps: number[] = [];
    for (let run = 0; run < runs; run++) rps.push((await load({ url, path, connections, seconds: 10, body: () => body })).rps);
    return rps;
  } finally {
    child.kill('SIGTERM');
  }
}

export async function api<T = any>(url: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const response = await fetch(url + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...headers, ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${path} → ${response.status} ${JSON.stringify(json)}`);
  return json as T;
}

/** Linux counts CPU time in ticks of 10 ms (USER_HZ 100) in /proc. */
const TICK_MS = 10;

/** User and system CPU time of a process, in ms, from /proc/<pid>/stat; 0 once it is gone. */
function processCpuMs(pid: number | string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // the name may hold spaces; fields from the 3rd on
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** Every PostgreSQL server process's CPU time, in ms (the bench database's backends among them). */
function postgresCpuMs(): number {
  let total = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres') total += processCpuMs(pid);
    } catch {
      // the process ended while we looked
    }
  }
  return total;
}

/** The machine's CPU time in ms, busy and in all, summed over its cores (/proc/stat). */
function machineCpuMs(): { busy: number; total: number } {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const total = ticks.slice(0, 8).reduce((sum, n) => sum + n, 0); // user … steal (guest time is inside user)
  const idle = ticks[3] + ticks[4]; // idle, iowait
  return { busy: (total - idle) * TICK_MS, total: total * TICK_MS };
}

/** Where the machine's CPU went during a run, in % of one core: 100 × cores is all of it. */
export type CpuUse = { machine: number; servers: number; postgres: number; loader: number; cores: number };

/**
 * Measures the CPU time of `run` (Linux /proc): the machine's, the servers' (`pids`), PostgreSQL's
 * and this process's, which runs the load generator.
 */
export async function measuringCpu<T>(pids: number[], run: () => Promise<T>): Promise<{ result: T; cpu: CpuUse }> {
  const sample = () => ({ machine: machineCpuMs(), servers: pids.reduce((sum, pid) => sum + processCpuMs(pid), 0), postgres: postgresCpuMs(), loader: process.cpuUsage() });
  const before = sample();
  const started = performance.now();
  const result = await run();
  const after = sample();
  const wallMs = performance.now() - started;
  const percent = (ms: number) => (100 * ms) / wallMs;
  const cores = availableParallelism();
  const loaderMs = (after.loader.user + after.loader.system - before.loader.user - before.loader.system) / 1000;
  return {
    result,
    cpu: {
      // Busy share of all the machine's time, so ticks counted while sampling do not tip it past 100 %.
      machine: (100 * cores * (after.machine.busy - before.machine.busy)) / (after.machine.total - before.machine.total),
      servers: percent(after.servers - before.servers),
      postgres: percent(after.postgres - before.postgres),
      loader: percent(loaderMs),
      cores,
    },
  };
}
