import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { api, bareFastifyRuns, load, NO_LIMITS, serve, summarize, tempDir, visitorAddress, type LoadResult, type Mixed, type Summary } from './lib.js';
import { provision, saleBody } from './sales.js';

const CONNECTIONS = 32;
const SECONDS = 10;

/** New visitors: each request from a client address of its own (X-Forwarded-For, with `serve --trust-proxy`). */
export function newVisitors(): () => Record<string, string> {
  let seq = 0;
  return () => ({ 'x-forwarded-for': visitorAddress(++seq) });
}

/** Clicks of new visitors. */
export function clickRequests(refCode: string, visitors = newVisitors()) {
  const body = JSON.stringify({ ref: refCode });
  return { path: '/api/v1/track/click', body: () => body, headersFor: visitors };
}

const readAdminToken = (dataDir: string) => readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();

/** Rows of a table in a stopped server's data file. */
async function countRows(dataDir: string, table: string): Promise<number> {
  const instance = await DuckDBInstance.create(join(dataDir, 'partnerkit.duckdb'));
  try {
    const connection = await instance.connect();
    const [row] = (await connection.runAndReadAll(`SELECT count(*) AS n FROM ${table}`)).getRowObjectsJS();
    connection.closeSync();
    return Number(row.n);
  } finally {
    instance.closeSync();
  }
}

export type ClickFigures = {
  clicks: { rps: Summary; p50: Summary; p99: Summary; storedOnce: boolean };
  bareFastify: { rps: Summary };
};

/** Click throughput at 32 connections, unique clicks on, every request a new visitor; beside a bare Fastify route. */
export async function benchClicks(runs = 3): Promise<ClickFigures> {
  const bare = await bareFastifyRuns('/api/v1/track/click', JSON.stringify({ ref: 'x' }), CONNECTIONS, runs);
  const dir = tempDir('clicks');
  const server = await serve(dir.path, [...NO_LIMITS, '--trust-proxy']);
  const results: LoadResult[] = [];
  try {
    const program = await provision(server.url, readAdminToken(dir.path), 1);
    const clicks = clickRequests(program.refCode);
    for (let run = 0; run < runs; run++) results.push(await load({ url: server.url, connections: CONNECTIONS, seconds: SECONDS, ...clicks }));
    await server.stop();
    // Every 2xx is a new visitor's click, stored once; requests in flight when a run ends are stored but not counted.
    const acknowledged = results.reduce((sum, r) => sum + r.ok, 0);
    const stored = (await countRows(dir.path, 'clicks')) - 1;
    return {
      clicks: {
        rps: summarize(results.map((r) => r.rps)),
        p50: summarize(results.map((r) => r.p50)),
        p99: summarize(results.map((r) => r.p99)),
        storedOnce: stored >= acknowledged && stored <= acknowledged + CONNECTIONS * runs,
      },
      bareFastify: { rps: summarize(bare) },
    };
  } finally {
    await server.stop();
    dir.remove();
  }
}

export type LinkFigures = {
  links: { rps: Summary; p50: Summary; p99: Summary; storedOnce: boolean };
  clicks: { rps: Summary };
};

/**
 * Partner links (GET /r/:refCode, 302 to the landing URL) at 32 connections beside the click
 * endpoint on the same server, runs interleaved so a slow spell of the machine weighs on both;
 * every request a new visitor of one shared sequence, so no link visit repeats a click's visitor.
 */
export async function benchLinks(runs = 3): Promise<LinkFigures> {
  const dir = tempDir('links');
  const server = await serve(dir.path, [...NO_LIMITS, '--trust-proxy']);
  const [clickRuns, linkRuns]: LoadResult[][] = [[], []];
  try {
    const program = await provision(server.url, readAdminToken(dir.path), 1, { landingUrl: 'https://shop.example/welcome' });
    const visitors = newVisitors();
    const clicks = clickRequests(program.refCode, visitors);
    const links = { path: `/r/${program.refCode}`, method: 'GET' as const, headersFor: visitors };
    for (let run = 0; run < runs; run++) {
      clickRuns.push(await load({ url: server.url, connections: CONNECTIONS, seconds: SECONDS, ...clicks }));
      linkRuns.push(await load({ url: server.url, connections: CONNECTIONS, seconds: SECONDS, ...links }));
    }
    await server.stop();
    // Every answer of a link run is a 302 with a new click; requests in flight when a run ends are stored but not counted.
    const acknowledged = [...clickRuns.map((r) => r.ok), ...linkRuns.map((r) => r.redirects)].reduce((sum, n) => sum + n, 0);
    const onlyRedirects = linkRuns.every((r) => r.non2xx === r.redirects && r.errors === 0);
    const stored = (await countRows(dir.path, 'clicks')) - 1;
    return {
      links: {
        rps: summarize(linkRuns.map((r) => r.rps)),
        p50: summarize(linkRuns.map((r) => r.p50)),
        p99: summarize(linkRuns.map((r) => r.p99)),
        storedOnce: onlyRedirects && stored >= acknowledged && stored <= acknowledged + 2 * CONNECTIONS * runs,
      },
      clicks: { rps: summarize(clickRuns.map((r) => r.rps)) },
    };
  } finally {
    await server.stop();
    dir.remove();
  }
}

export type MixedFigures = { rps: number; p99: number; sent: { clicks: number; leads: number; sales: number }; non2xx: number; fiveHundreds: number; report: { p50: number; p99: number; runs: number } };

/**
 * Clicks, leads and sales together, 100 : 10 : 3, for 10 s at 32 connections, while the 7-day
 * report is requested every second: every lead a new customer of a provisioned click, every sale a
 * new transaction of a provisioned customer, every click a new visitor.
 */
export async function benchMixed(): Promise<MixedFigures> {
  const dir = tempDir('mixed');
  const server = await serve(dir.path, [...NO_LIMITS, '--trust-proxy']);
  try {
    const adminToken = readAdminToken(dir.path);
    const program = await provision(server.url, adminToken);
    const clicks = clickRequests(program.refCode);
    const sales = saleBody();
    const sent = { clicks: 0, leads: 0, sales: 0 };
    const key = { authorization: `Bearer ${program.apiKey}` };
    let seq = 0;
    const mixed = (): Mixed => {
      const slot = seq++ % 113;
      if (slot < 100) {
        sent.clicks++;
        return { path: clicks.path, body: clicks.body(), headers: clicks.headersFor() };
      }
      if (slot < 110) {
        const n = sent.leads++;
        return { path: '/api/v1/track/lead', body: JSON.stringify({ customer_key: `mixed_${n}`, click_id: program.clickIds[n % program.clickIds.length] }), headers: key };
      }
      sent.sales++;
      return { path: '/api/v1/track/sale', body: sales(), headers: key };
    };
    let running = true;
    const reportMs: number[] = [];
    const reports = (async () => {
      while (running) {
        const started = performance.now();
        await api(server.url, `/api/tracking/performance/${program.id}?period=7d`, adminToken);
        reportMs.push(performance.now() - started);
        await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (performance.now() - started))));
      }
    })();
    const result = await load({ url: server.url, path: '/api/v1/track/click', connections: CONNECTIONS, seconds: SECONDS, mixed });
    running = false;
    await reports;
    const sorted = [...reportMs].sort((a, b) => a - b);
    const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]);
    return {
      rps: result.rps,
      p99: result.p99,
      sent,
      non2xx: result.non2xx,
      fiveHundreds: result.fiveHundreds,
      report: { p50: at(0.5), p99: at(0.99), runs: sorted.length },
    };
  } finally {
    await server.stop();
    dir.remove();
  }
}

export type FloodFigures = {
  sales: { unloaded: LoadResult; flooded: LoadResult };
  flood: { randomKeys: FloodCounts; oneAddressClicks: FloodCounts };
};
export type FloodCounts = { rps: number; statuses: Record<string, number> };

const FLOOD_SALE_CONNECTIONS = 8;

/**
 * Another program's sales (8 connections, 10 s) alone, then under a flood from a separate process:
 * 128 connections of random API keys and 512 connections of clicks from one client address, against
 * `serve` with its default click and failed-authentication limits.
 */
export async function benchFlood(): Promise<FloodFigures> {
  const dir = tempDir('flood');
  const server = await serve(dir.path, ['--rate-limit', '100000000']);
  try {
    const program = await provision(server.url, readAdminToken(dir.path));
    const sales = { url: server.url, path: '/api/v1/track/sale', connections: FLOOD_SALE_CONNECTIONS, headers: { authorization: `Bearer ${program.apiKey}` }, body: saleBody() };
    await load({ ...sales, seconds: 3 }); // warm-up
    const unloaded = await load({ ...sales, seconds: SECONDS });
    const child = spawn(process.execPath, [resolve(import.meta.dirname, 'flood.js'), server.url, program.refCode, String(SECONDS + 2)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    await new Promise((r) => setTimeout(r, 1000)); // the flood's connections open first
    const flooded = await load({ ...sales, seconds: SECONDS });
    await exited;
    return { sales: { unloaded, flooded }, flood: JSON.parse(output) as FloodFigures['flood'] };
  } finally {
    await server.stop();
    dir.remove();
  }
}
