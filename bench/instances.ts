// `npm run bench -- sales clicks --engine postgres`: sale and click throughput with one `serve`
// instance and with two on one PostgreSQL database, beside the same load on DuckDB, runs
// interleaved in one process so a slow spell of the machine weighs on every setup
// (docs/testing.md#postgresql-and-several-instances).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { StoreLocation } from '../src/store/open.js';
import { clickRequests, newVisitors } from './clicks.js';
import { capCpu, cpuCapUnavailable, load, measuringCpu, NO_LIMITS, serve, summarize, tempDir, type CpuUse, type LoadResult, type Served, type Summary } from './lib.js';
import { provision, saleBody } from './sales.js';

const SECONDS = 10;

export type Workload = 'sales' | 'clicks';
/**
 * Each instance's share of a core in the capped setups: small enough that PostgreSQL and the load
 * generator keep CPU to spare beside two of them on this 2-core machine, so the instances, not the
 * machine, are what limits the throughput (docs/testing.md#postgresql-and-several-instances).
 */
export const CAP_PERCENT = 40;

/**
 * The setups, run interleaved, with the load generator's connections to each instance. Uncapped, the
 * same 32 connections are split between the instances: the same clients served by one or by two.
 * Capped, each instance gets 32, as loaded as the one alone: two instances' capacity against one's,
 * each batching what 32 clients send (docs/testing.md#postgresql-and-several-instances).
 */
const SETUPS = {
  duckdb: { instances: 1, postgres: false, capped: false, connections: 32 },
  postgresOne: { instances: 1, postgres: true, capped: false, connections: 32 },
  postgresTwo: { instances: 2, postgres: true, capped: false, connections: 16 },
  cappedOne: { instances: 1, postgres: true, capped: true, connections: 32 },
  cappedTwo: { instances: 2, postgres: true, capped: true, connections: 32 },
} as const;
type SetupName = keyof typeof SETUPS;
export type SetupFigures = {
  rps: Summary;
  p50: Summary;
  p99: Summary;
  /** PostgreSQL: write transactions rolled back after a serialization conflict and run again, per run. */
  rolledBack: Summary | null;
  storedOnce: boolean;
  /** Where the CPU went, in % of one core (medians of the runs), and the servers' and PostgreSQL's CPU time per request. */
  cpu: Record<Exclude<keyof CpuUse, 'cores'>, number> & { cores: number; msPerRequest: Summary };
};
/** The capped setups are left out (undefined) where no process can be held to a CPU share; `uncapped` says why. */
export type InstancesFigures = Record<Exclude<SetupName, 'cappedOne' | 'cappedTwo'>, SetupFigures> &
  Partial<Record<'cappedOne' | 'cappedTwo', SetupFigures>> & { uncapped?: string };

type Setup = {
  servers: Served[];
  location: StoreLocation;
  /** One request maker per server (sale bodies with transaction ids of their own; clicks of visitors of one shared sequence). */
  requests: Array<Pick<Parameters<typeof load>[0], 'path' | 'headers' | 'body' | 'headersFor'>>;
  remove(): Promise<void>;
};

/** What each acknowledged request stores: a sale with its commission, a new visitor's click. */
const TABLES: Record<Workload, string[]> = { sales: ['sale_events', 'commissions'], clicks: ['clicks'] };
/** Their rows before the runs: the clicks workload's program is provisioned with one click. */
const PROVISIONED: Record<Workload, number[]> = { sales: [0, 0], clicks: [1] };

/** Rows of each table, read through the store once its servers have stopped. */
async function countRows(location: StoreLocation, tables: string[]): Promise<number[]> {
  const { openStore } = await import('../src/store/open.js');
  const store = await openStore(location);
  try {
    return await store.read(async (sql) => Promise.all(tables.map(async (table) => (await sql.one<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n)));
  } finally {
    await store.close();
  }
}

/** Runs SQL on a connection of its own to the bench database. */
async function query<T extends pg.QueryResultRow>(databaseUrl: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** A schema of its own in the bench database: the URL that works in it, and its removal. */
async function benchSchema(databaseUrl: string, name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `pk_bench_${process.pid}_${name}`.toLowerCase();
  await query(databaseUrl, `DROP SCHEMA IF EXISTS ${schema} CASCADE; CREATE SCHEMA ${schema}`);
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { url: url.toString(), drop: async () => void (await query(databaseUrl, `DROP SCHEMA ${schema} CASCADE`)) };
}

/** PostgreSQL publishes what an idle connection counted after 10 s (PGSTAT_IDLE_INTERVAL). */
const STATS_SETTLE_MS = 11_000;

/**
 * Transactions the bench database has rolled back so far, once the counts of the last run are
 * published: a write transaction that loses a serialization conflict is rolled back and run again
 * (docs/testing.md#postgresql-and-several-instances), so the difference over a run is how many were run again.
 */
async function rollbacks(databaseUrl: string): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, STATS_SETTLE_MS));
  const [row] = await query<{ n: string }>(databaseUrl, 'SELECT xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()');
  return Number(row.n);
}

/**
 * `instances` servers on one data dir (one admin token) and one database: the data dir's DuckDB
 * file, or a PostgreSQL schema; a program provisioned for the workload through the first server.
 */
async function setUp(workload: Workload, name: SetupName, databaseUrl: string): Promise<Setup> {
  const { instances, postgres, capped } = SETUPS[name];
  const dir = tempDir(`instances-${name}`);
  const schema = postgres ? await benchSchema(databaseUrl, name) : undefined;
  const env: Record<string, string> = schema ? { PARTNERKIT_DATABASE_URL: schema.url } : {};
  const servers: Served[] = [];
  const uncaps: Array<() => void> = [];
  const remove = async () => {
    await Promise.all(servers.map((server) => server.stop()));
    for (const uncap of uncaps) uncap();
    await schema?.drop();
    dir.remove();
  };
  try {
    // One after the other: each waits for the data dir's discovery file to name it.
    for (let i = 0; i < instances; i++) {
      const server = await serve(dir.path, [...NO_LIMITS, '--trust-proxy'], env);
      servers.push(server);
      if (capped) uncaps.push(capCpu(server.pid, CAP_PERCENT));
    }
    const location: StoreLocation = schema ? { postgres: schema.url } : { duckdb: join(dir.path, 'partnerkit.duckdb') };
    const adminToken = readFileSync(join(dir.path, 'admin-token'), 'utf8').trim();
    const program = await provision(servers[0].url, adminToken, workload === 'sales' ? undefined : 1);
    const visitors = newVisitors();
    const requests = servers.map((_, i) =>
      workload === 'sales'
        ? { path: '/api/v1/track/sale', headers: { authorization: `Bearer ${program.apiKey}` }, body: saleBody(`bench_${i}`) }
        : clickRequests(program.refCode, visitors),
    );
    return { servers, location, requests, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/**
 * One 10 s run of every server of a setup at once, `connections` each: the sum of their throughputs,
 * the worse of their latencies, and where the CPU went meanwhile.
 */
async function runOnce(setup: Setup, connections: number): Promise<{ result: LoadResult; cpu: CpuUse }> {
  const { result: results, cpu } = await measuringCpu(
    setup.servers.map((server) => server.pid),
    () => Promise.all(setup.servers.map((server, i) => load({ url: server.url, connections, seconds: SECONDS, ...setup.requests[i] }))),
  );
  const sum = (field: keyof LoadResult) => results.reduce((total, r) => total + r[field], 0);
  const worst = (field: keyof LoadResult) => Math.max(...results.map((r) => r[field]));
  const result = {
    rps: sum('rps'),
    p50: worst('p50'),
    p99: worst('p99'),
    ok: sum('ok'),
    redirects: sum('redirects'),
    non2xx: sum('non2xx'),
    fiveHundreds: sum('fiveHundreds'),
    errors: sum('errors'),
  };
  return { result, cpu };
}

/**
 * The workload on DuckDB (one instance), on PostgreSQL with one instance and with two, then the same
 * two held to CAP_PERCENT of a core each where a cgroup can do it (SETUPS); `runs` × 10 s each,
 * interleaved.
 */
export async function benchInstances(workload: Workload, databaseUrl: string, runs = 3): Promise<InstancesFigures> {
  const uncapped = cpuCapUnavailable();
  const names = (Object.keys(SETUPS) as SetupName[]).filter((name) => !(uncapped && SETUPS[name].capped));
  const setups: Partial<Record<SetupName, Setup>> = {};
  try {
    for (const name of names) setups[name] = await setUp(workload, name, databaseUrl);
    const results = Object.fromEntries(names.map((name) => [name, [] as LoadResult[]])) as Record<SetupName, LoadResult[]>;
    const cpu = Object.fromEntries(names.map((name) => [name, [] as CpuUse[]])) as Record<SetupName, CpuUse[]>;
    const rolledBack = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<SetupName, number[]>;
    let rolledBackSoFar = await rollbacks(databaseUrl);
    for (let run = 0; run < runs; run++) {
      for (const name of names) {
        const { result, cpu: used } = await runOnce(setups[name]!, SETUPS[name].connections);
        results[name].push(result);
        cpu[name].push(used);
        if (!SETUPS[name].postgres) continue;
        const now = await rollbacks(databaseUrl);
        rolledBack[name].push(now - rolledBackSoFar);
        rolledBackSoFar = now;
      }
    }
    const figures = { uncapped } as InstancesFigures;
    for (const name of names) {
      const setup = setups[name]!;
      await Promise.all(setup.servers.map((server) => server.stop()));
      // Requests in flight when a run ends are stored but not counted, at most one per connection and run.
      const inFlight = SETUPS[name].instances * SETUPS[name].connections * runs;
      const acknowledged = results[name].reduce((sum, r) => sum + r.ok, 0);
      const after = await countRows(setup.location, TABLES[workload]);
      const stored = after.map((n, i) => n - PROVISIONED[workload][i]);
      const median = (of: (c: CpuUse) => number) => summarize(cpu[name].map(of)).median;
      figures[name] = {
        rps: summarize(results[name].map((r) => r.rps)),
        p50: summarize(results[name].map((r) => r.p50)),
        p99: summarize(results[name].map((r) => r.p99)),
        rolledBack: SETUPS[name].postgres ? summarize(rolledBack[name]) : null,
        cpu: {
          machine: median((c) => c.machine),
          servers: median((c) => c.servers),
          postgres: median((c) => c.postgres),
          loader: median((c) => c.loader),
          cores: cpu[name][0].cores,
          // 1 % of a core is 10 ms of CPU per second: ÷ requests per second gives ms per request.
          msPerRequest: summarize(cpu[name].map((c, i) => (10 * (c.servers + c.postgres)) / results[name][i].rps)),
        },
        storedOnce:
          results[name].every((r) => r.non2xx === 0 && r.errors === 0) && stored.every((n) => n === stored[0] && n >= acknowledged && n <= acknowledged + inFlight),
      };
    }
    return figures;
  } finally {
    for (const setup of Object.values(setups)) await setup.remove();
  }
}
