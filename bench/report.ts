import { execFile } from 'node:child_process';
import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { BIN, serve, summarize, tempDir, type Summary } from './lib.js';
import { generateHistory } from './history.js';
import type { PerformanceQuery } from '../src/api/index.js';
import { reportWindow, requestedRange } from '../src/domain/performance.js';
import { openStore } from '../src/store/open.js';
import { performance as performanceSql } from '../src/store/reports.js';

/** The instant the benchmark's histories end at: reports are computed against a pinned clock. */
export const NOW = '2026-03-10T15:00:00.000Z';
const ENV = { ...process.env, PARTNERKIT_NOW: NOW };

export const PERIODS: Array<{ name: string; query: PerformanceQuery }> = [
  { name: '7d', query: { period: '7d' } },
  { name: '30d', query: { period: '30d' } },
  { name: '90d', query: { period: '90d' } },
  { name: 'all', query: { period: 'all' } },
  { name: 'custom year', query: { dateFrom: '2025-03-11', dateTo: '2026-03-10' } },
];

const queryString = (q: PerformanceQuery) => new URLSearchParams(q as Record<string, string>).toString();

/** The demo's data: its data dir and program, in the data dir's DuckDB file or in the PostgreSQL database `databaseUrl`. */
export type DataSet = { dataDir: string; programId: number; databaseUrl?: string };

/** The environment a command or a server gets to use a data set's database. */
const databaseEnv = (databaseUrl?: string): Record<string, string> => (databaseUrl ? { PARTNERKIT_DATABASE_URL: databaseUrl } : {});

function runDemo(dataDir: string, clicks: number, seed: number, databaseUrl?: string): Promise<{ seconds: number; result: any }> {
  const started = performance.now();
  const env = { ...ENV, PARTNERKIT_DATA_DIR: dataDir, ...databaseEnv(databaseUrl) };
  return new Promise((done, fail) =>
    execFile(process.execPath, [BIN, 'demo', '--clicks', String(clicks), '--seed', String(seed), '--json'], { env, maxBuffer: 1 << 24 }, (error, stdout, stderr) =>
      error ? fail(new Error(`demo failed: ${stderr}`)) : done({ seconds: (performance.now() - started) / 1000, result: JSON.parse(stdout) }),
    ),
  );
}

/** The reports' data set alone, for figures that need the data but not the loader's: one `partnerkit demo --clicks N`. */
export async function demoDataSet(clicks: number): Promise<{ dataDir: string; programId: number; remove(): void }> {
  const dir = tempDir('demo');
  const { result } = await runDemo(dir.path, clicks, 1);
  return { dataDir: dir.path, programId: result.programId, remove: dir.remove };
}

export type DemoFigures = { seconds: Summary; rowsPerSecond: Summary; ceilingRowsPerSecond: Summary; rows: number; counts: Record<string, number> };

/** Rows a demo writes: clicks, customers, and per sale its event, ledger entry and commission, the partners and their enrollments. */
const demoRows = (c: Record<string, number>) => c.clicks + c.leads + 3 * c.sales + 2 * c.partners;

/** `partnerkit demo --clicks N` (wall time of the whole command) beside the same rows made by SQL. */
export async function benchDemo(clicks: number, runs = 3): Promise<{ figures: DemoFigures; keep: { dataDir: string; programId: number; remove(): void } }> {
  const seconds: number[] = [];
  let last: { dir: ReturnType<typeof tempDir>; result: any } | undefined;
  for (let run = 0; run < runs; run++) {
    const dir = tempDir('demo');
    const { seconds: s, result } = await runDemo(dir.path, clicks, 1);
    seconds.push(s);
    last?.dir.remove();
    last = { dir, result };
  }
  const c = last!.result.counts;
  const rows = demoRows(c);
  const ceiling: number[] = [];
  for (let run = 0; run < runs; run++) {
    const dir = tempDir('ceiling');
    const generated = await generateHistory(join(dir.path, 'partnerkit.duckdb'), { clicks: c.clicks, customers: c.leads, sales: c.sales, days: 90, end: new Date(NOW) });
    ceiling.push(generated.rows / generated.seconds);
    dir.remove();
  }
  return {
    figures: { seconds: summarize(seconds), rowsPerSecond: summarize(seconds.map((s) => rows / s)), ceilingRowsPerSecond: summarize(ceiling), rows, counts: c },
    keep: { dataDir: last!.dir.path, programId: last!.result.programId, remove: last!.dir.remove },
  };
}

async function timedGet(url: string, token: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  await response.json();
  if (!response.ok) throw new Error(`${url} → ${response.status}`);
  return performance.now() - started;
}

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

export type ReportFigures = Record<string, { warm: Summary; cold: Summary; rawSql: Summary; httpOverhead: number }> & {};

/**
 * The report per period: warm (20 runs on one server), cold (a fresh process each), and its SQL
 * alone on a plain connection, the ceiling HTTP is compared with. The SQL runs on a copy of the
 * DuckDB file (one process holds a file) or on the PostgreSQL database itself, one run beside each
 * HTTP run, so a slow spell of this shared machine weighs on both sides of the overhead ratio
 * instead of on one.
 */
export async function benchReports({ dataDir, programId, databaseUrl }: DataSet, warmRuns = 20, coldRuns = 3): Promise<{ periods: ReportFigures; rssMiB: number }> {
  const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
  const env = { PARTNERKIT_NOW: NOW, ...databaseEnv(databaseUrl) };

  const cold: Record<string, number[]> = {};
  for (const { name, query } of PERIODS) {
    cold[name] = [];
    for (let i = 0; i < coldRuns; i++) {
      const server = await serve(dataDir, [], env);
      cold[name].push(await timedGet(`${server.url}/api/tracking/performance/${programId}?${queryString(query)}`, token));
      await server.stop();
    }
  }

  const copy = databaseUrl ? undefined : tempDir('raw-sql');
  if (copy) copyFileSync(join(dataDir, 'partnerkit.duckdb'), join(copy.path, 'partnerkit.duckdb'));
  const store = await openStore(copy ? { duckdb: join(copy.path, 'partnerkit.duckdb') } : { postgres: databaseUrl! });
  const server = await serve(dataDir, [], env);
  const periods = {} as ReportFigures;
  try {
    const created = (await store.read((sql) => sql.one<{ created_at: Date }>('SELECT created_at FROM programs WHERE id = $1', [programId])))!.created_at;
    for (const { name, query } of PERIODS) {
      const url = `${server.url}/api/tracking/performance/${programId}?${queryString(query)}`;
      const window = reportWindow(requestedRange(query), new Date(NOW), created);
      const rawRun = async () => {
        const started = performance.now();
        await store.read((sql) => performanceSql(sql, programId, window));
        return performance.now() - started;
      };
      await rawRun();
      await timedGet(url, token);
      const [raw, warm]: number[][] = [[], []];
      for (let i = 0; i < warmRuns; i++) {
        raw.push(await rawRun());
        warm.push(await timedGet(url, token));
      }
      const [w, r] = [summarize(warm), summarize(raw)];
      periods[name] = { warm: w, cold: summarize(cold[name]), rawSql: r, httpOverhead: w.median / r.median - 1 };
    }
    return { periods, rssMiB: rssMiB(server.pid) };
  } finally {
    await server.stop();
    await store.close();
    copy?.remove();
  }
}

export type PostgresFigures = { load: { seconds: number; rows: number; rowsPerSecond: number; counts: Record<string, number> }; periods: ReportFigures; rssMiB: number };

/**
 * The demo loaded into PostgreSQL (`partnerkit demo --clicks N`, wall time of the command: COPY,
 * the rollups, ANALYZE; one run, minutes at 10 M clicks) and its reports measured as benchReports
 * measures DuckDB's, in a schema of its own in the database `databaseUrl`, dropped afterwards.
 */
export async function benchPostgres(databaseUrl: string, clicks: number): Promise<PostgresFigures> {
  const schema = `partnerkit_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: databaseUrl });
  await admin.connect();
  const dir = tempDir('postgres');
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
    const url = new URL(databaseUrl);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const { seconds, result } = await runDemo(dir.path, clicks, 1, url.toString());
    const rows = demoRows(result.counts);
    const reports = await benchReports({ dataDir: dir.path, programId: result.programId, databaseUrl: url.toString() });
    return { load: { seconds, rows, rowsPerSecond: rows / seconds, counts: result.counts }, ...reports };
  } finally {
    dir.remove();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}

export type PartnerReportFigures = { partners: Summary; program: Summary; rows: number };

/**
 * The per-partner report beside the program report, 90 days, warm, on the reports' data set: one
 * server, the two requested in turn `warmRuns` times after one of each, so both see the same
 * machine; the program report is the ceiling the per-partner one is compared with.
 */
export async function benchPartnerReport(dataDir: string, programId: number, warmRuns = 20): Promise<PartnerReportFigures> {
  const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
  const server = await serve(dataDir, [], { PARTNERKIT_NOW: NOW });
  try {
    const program = `${server.url}/api/tracking/performance/${programId}?period=90d`;
    const partners = `${server.url}/api/tracking/performance/${programId}/partners?period=90d`;
    await timedGet(program, token);
    await timedGet(partners, token);
    const [programMs, partnersMs]: number[][] = [[], []];
    for (let i = 0; i < warmRuns; i++) {
      programMs.push(await timedGet(program, token));
      partnersMs.push(await timedGet(partners, token));
    }
    const rows = ((await (await fetch(partners, { headers: { authorization: `Bearer ${token}` } })).json()) as { data: unknown[] }).data.length;
    return { partners: summarize(partnersMs), program: summarize(programMs), rows };
  } finally {
    await server.stop();
  }
}

/** The 90-day report, warm, on generated histories of growing size. */
export async function benchScaling(sizes: number[], warmRuns = 20): Promise<Array<{ clicks: number; warm: Summary; rssMiB: number }>> {
  const out = [];
  for (const clicks of sizes) {
    const dir = tempDir('scale');
    try {
      await generateHistory(join(dir.path, 'partnerkit.duckdb'), { clicks, customers: clicks / 10, sales: clicks / 20, days: 90, end: new Date(NOW) });
      const server = await serve(dir.path, [], { PARTNERKIT_NOW: NOW });
      try {
        const token = readFileSync(join(dir.path, 'admin-token'), 'utf8').trim();
        const url = `${server.url}/api/tracking/performance/1?period=90d`;
        await timedGet(url, token);
        const warm: number[] = [];
        for (let i = 0; i < warmRuns; i++) warm.push(await timedGet(url, token));
        out.push({ clicks, warm: summarize(warm), rssMiB: rssMiB(server.pid) });
      } finally {
        await server.stop();
      }
    } finally {
      dir.remove();
    }
  }
  return out;
}
