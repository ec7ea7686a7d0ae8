// npm run bench [-- section ...]: the figures and targets of docs/benchmarks.md, each beside a
// ceiling measured in the same run on the same machine; prints a table, merges the sections it ran
// into bench/results.json (the latest run of every section) and writes docs/benchmarks.md from it
// and bench/benchmarks-intro.md. `npm run bench -- docs` only writes the page again.
// Sections: cli, sales, fraud, groups, reconcile, refunds, webhooks, outbound, clicks, links, mixed, flood, rate-limits, payouts, profile, demo, reports, preview, partners, dashboard, exports, scaling (default: all). BENCH_CLICKS scales the demo
// and report data down for a quick try (default 10,000,000); BENCH_SCALING lists the scaling sizes.
// PARTNERKIT_BENCH_DATABASE_URL names a PostgreSQL database: the exports section then also measures the
// export from PostgreSQL, and the rate-limits section (only then) the shared counters, each in a
// schema of its own dropped afterwards.
// `--engine postgres` measures sales and clicks with one and two instances on that database, beside
// DuckDB (instances.ts), and adds PostgreSQL's rows to the reports section, beside DuckDB's.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import Table from 'cli-table3';
import { mergeResults, renderBenchmarks, type BenchResults, type BenchRow, type SectionRun } from './benchmarks.js';
import { benchCli } from './cli.js';
import { benchDashboard } from './dashboard.js';
import { benchExports, benchPostgresExports } from './exports.js';
import { benchClicks, benchFlood, benchLinks, benchMixed } from './clicks.js';
import { benchInstances, CAP_PERCENT, type SetupFigures } from './instances.js';
import { benchPayouts } from './payouts.js';
import { benchRateLimits } from './rate-limits.js';
import { profileWrites, type WriteProfile } from './profile.js';
import { benchRefunds } from './refunds.js';
import { benchDemo, benchPartnerReport, benchPostgres, benchReports, benchScaling, demoDataSet } from './report.js';
import { benchSales } from './sales.js';
import { benchPreview, PREVIEW_SALES } from './preview.js';
import { benchFraud, benchGroups, benchReconcile } from './fraud.js';
import { benchWebhooks } from './webhooks.js';
import { benchOutbound } from './outbound.js';

const args = process.argv.slice(2);
const engineAt = args.indexOf('--engine');
const engine = engineAt === -1 ? 'duckdb' : args.splice(engineAt, 2)[1];
const docsOnly = args.length === 1 && args[0] === 'docs';
const sections = docsOnly ? [] : args;
const INSTANCE_SECTIONS = ['sales', 'clicks'] as const;
const POSTGRES_SECTIONS = [...INSTANCE_SECTIONS, 'reports'];
if (engine !== 'duckdb' && engine !== 'postgres') throw new Error(`--engine is duckdb or postgres, not ${engine}`);
const postgres = engine === 'postgres';
const benchDatabaseUrl = process.env.PARTNERKIT_BENCH_DATABASE_URL;
if (postgres) {
  if (!benchDatabaseUrl) throw new Error('--engine postgres needs PARTNERKIT_BENCH_DATABASE_URL: a PostgreSQL database the bench makes schemas in');
  const others = sections.filter((name) => !POSTGRES_SECTIONS.includes(name));
  if (others.length > 0) throw new Error(`--engine postgres measures ${POSTGRES_SECTIONS.join(', ')}, not ${others.join(', ')}`);
}
/** A DuckDB section; with --engine postgres only the reports, which then add PostgreSQL's rows beside DuckDB's. */
const wanted = (name: string) => !docsOnly && (!postgres || name === 'reports') && (sections.length === 0 || sections.includes(name));
/** The sales and clicks of one and two instances on PostgreSQL, beside DuckDB (--engine postgres). */
const wantedOnPostgres = (name: (typeof INSTANCE_SECTIONS)[number]) => !docsOnly && postgres && (sections.length === 0 || sections.includes(name));
const clicks = Number(process.env.BENCH_CLICKS ?? 10_000_000);
const scalingSizes = (process.env.BENCH_SCALING ?? '1000000,10000000,100000000').split(',').map(Number);

type Row = BenchRow;
/** The section whose rows `record` is adding (each block below sets it). */
let section = '';
const rows: Array<Row & { section: string }> = [];
const results: Record<string, unknown> = { machine: { cpus: cpus().length, node: process.version }, startedAt: new Date().toISOString(), engine, clicks };
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const spread = (s: { median: number; min: number; max: number }, digits = 0, unit = '') =>
  `${fmt(s.median, digits)}${unit} (${fmt(s.min, digits)}–${fmt(s.max, digits)})`;
const log = (line: string) => console.error(line);
const record = (row: Row) => {
  rows.push({ ...row, section });
  log(`  ${row.figure}: ${row.value} | ceiling ${row.ceiling} | ${row.ratio} | target ${row.target} | ${row.met === null ? '—' : row.met ? 'met' : 'NOT met'}`);
};

if (wanted('cli')) {
  section = 'cli';
  log('cli: whole command processes beside node -e 0, 7 interleaved rounds…');
  const c = await benchCli();
  results.cli = c;
  for (const { name, ms, cpuMs, targetMs } of c.cases) {
    record({
      figure: `command: ${name}`,
      value: `${spread(ms)} ms${cpuMs ? `, CPU ${fmt(cpuMs.median)} ms` : ''}`,
      ceiling: `node -e 0: ${fmt(c.baseline.ms.median)} ms, CPU ${fmt(c.baseline.cpuMs.median)} ms`,
      ratio: `${(ms.median / c.baseline.ms.median).toFixed(1)}×${cpuMs ? `, CPU ${(cpuMs.median / c.baseline.cpuMs.median).toFixed(1)}×` : ''}`,
      target: targetMs === null ? '— (npm starting)' : `≤ ${fmt(targetMs)} ms`,
      met: targetMs === null ? null : ms.median <= targetMs,
    });
  }
}

let saleRps: number | undefined;
if (wanted('sales')) {
  section = 'sales';
  log('sales: bare Fastify, raw store loop, partnerkit serve (3 × 10 s each), duplicate storm…');
  const s = await benchSales();
  results.sales = s;
  saleRps = s.sales.rps.median;
  record({
    figure: 'sale throughput (32 connections)',
    value: `${spread(s.sales.rps)}/s`,
    ceiling: `raw store loop ${fmt(s.rawStore.rps.median)}/s`,
    ratio: `${(s.sales.rps.median / s.rawStore.rps.median).toFixed(2)}×`,
    target: '≥ 2,000/s, ≥ 3× raw loop',
    met: s.sales.rps.median >= 2000 && s.sales.rps.median >= 3 * s.rawStore.rps.median,
  });
  record({
    figure: 'sale latency p50 / p99',
    value: `${s.sales.p50.median} / ${s.sales.p99.median} ms`,
    ceiling: `bare Fastify ${fmt(s.bareFastify.rps.median)}/s`,
    ratio: `${((100 * s.sales.rps.median) / s.bareFastify.rps.median).toFixed(1)} % of bare`,
    target: 'p99 ≤ 50 ms',
    met: s.sales.p99.median <= 50,
  });
  record({
    figure: 'every 2xx stored exactly once',
    value: String(s.sales.recordedExactly),
    ceiling: '—',
    ratio: '—',
    target: 'true',
    met: s.sales.recordedExactly,
  });
  record({
    figure: 'duplicate storm (50 × 20 rounds)',
    value: `one sale per round: ${s.duplicateStorm.exactlyOnePerRound}, 5xx: ${s.duplicateStorm.fiveHundreds}`,
    ceiling: '—',
    ratio: '—',
    target: 'exactly one, rest 409, no 5xx',
    met: s.duplicateStorm.exactlyOnePerRound && s.duplicateStorm.fiveHundreds === 0,
  });
}

if (wanted('fraud')) {
  section = 'fraud';
  log('fraud: sales with every fraud rule off and on, one server, interleaved (3 × 10 s each)…');
  const f = await benchFraud();
  results.fraud = f;
  record({
    figure: 'sale throughput, every fraud rule on',
    value: `${spread(f.on)}/s`,
    ceiling: `every rule off ${fmt(f.off.median)}/s`,
    ratio: `${(f.on.median / f.off.median).toFixed(2)}×`,
    target: '≥ 0.9× rules off',
    met: f.on.median >= 0.9 * f.off.median,
  });
}

if (wanted('groups')) {
  section = 'groups';
  log('groups: sales without groups and with groups and thresholds in use, one server, interleaved (3 × 10 s each)…');
  const g = await benchGroups();
  results.groups = g;
  record({
    figure: 'sale throughput, groups and thresholds in use',
    value: `${spread(g.groups)}/s`,
    ceiling: `no groups ${fmt(g.plain.median)}/s`,
    ratio: `${(g.groups.median / g.plain.median).toFixed(2)}×`,
    target: '≥ 0.9× no groups',
    met: g.groups.median >= 0.9 * g.plain.median,
  });
}

if (wanted('reconcile')) {
  section = 'reconcile';
  log('reconcile: 10,000 events from a local fake of Stripe\'s API…');
  const r = await benchReconcile();
  results.reconcile = r;
  record({
    figure: `stripe reconcile of ${fmt(r.events)} events`,
    value: `${fmt(r.perSecond)} events/s (${fmt(r.seconds, 1)} s, ${fmt(r.recorded)} recorded)`,
    ceiling: '—',
    ratio: '—',
    target: '≥ 500 events/s, every event recorded',
    met: r.perSecond >= 500 && r.recorded === r.events,
  });
}

for (const workload of INSTANCE_SECTIONS.filter(wantedOnPostgres)) {
  section = `${workload}-postgres`;
  const what = workload === 'sales' ? 'sale' : 'click';
  log(`${workload}: DuckDB, PostgreSQL with one instance and with two (32 connections in all), then one and two held to ${CAP_PERCENT} % of a core each (32 connections each), 3 × 10 s each, interleaved…`);
  const f = await benchInstances(workload, benchDatabaseUrl!);
  results[`${workload}Instances`] = f;
  const figure = (s: SetupFigures) =>
    `${spread(s.rps)}/s, ${s.p50.median} / ${s.p99.median} ms${s.rolledBack ? `; ${fmt(s.rolledBack.median)} transactions run again per 10 s` : ''}`;
  record({
    figure: `${what} throughput p50 / p99, PostgreSQL, one instance (32 connections)`,
    value: figure(f.postgresOne),
    ceiling: `DuckDB ${figure(f.duckdb)}`,
    ratio: `${((100 * f.postgresOne.rps.median) / f.duckdb.rps.median).toFixed(0)} % of DuckDB`,
    target: '—',
    met: null,
  });
  const times = (two: SetupFigures, one: SetupFigures) => two.rps.median / one.rps.median;
  record({
    figure: `${what} throughput p50 / p99, PostgreSQL, two instances (16 + 16 connections; latencies of the slower)`,
    value: figure(f.postgresTwo),
    ceiling: `one instance ${fmt(f.postgresOne.rps.median)}/s; DuckDB ${fmt(f.duckdb.rps.median)}/s`,
    ratio: `${times(f.postgresTwo, f.postgresOne).toFixed(2)}× one instance, ${((100 * f.postgresTwo.rps.median) / f.duckdb.rps.median).toFixed(0)} % of DuckDB`,
    target: '— (instances share the machine\'s cores: see where the CPU went)',
    met: null,
  });
  const cpuUse = ({ cpu }: SetupFigures) =>
    `machine ${fmt(cpu.machine)} % of ${cpu.cores * 100} % (servers ${fmt(cpu.servers)} %, PostgreSQL ${fmt(cpu.postgres)} %, load generator ${fmt(cpu.loader)} %), ` +
    `servers + PostgreSQL ${fmt(cpu.msPerRequest.median, 2)} ms CPU per ${what}`;
  record({
    figure: `${what}: where the CPU went (% of one core), PostgreSQL, one instance; two instances`,
    value: cpuUse(f.postgresOne),
    ceiling: `two: ${cpuUse(f.postgresTwo)}`,
    ratio: `${(f.postgresTwo.cpu.msPerRequest.median / f.postgresOne.cpu.msPerRequest.median).toFixed(2)}× the CPU per ${what} with two`,
    target: '—',
    met: null,
  });
  const { cappedOne, cappedTwo } = f;
  const capped = `instances held to ${CAP_PERCENT} % of a core each, 32 connections each`;
  if (cappedOne && cappedTwo) {
    record({
      figure: `${what} throughput p50 / p99, PostgreSQL, two instances, ${capped}`,
      value: figure(cappedTwo),
      ceiling: `one capped instance ${figure(cappedOne)}`,
      ratio: `${times(cappedTwo, cappedOne).toFixed(2)}× one instance`,
      target: '≥ 1.6× one instance',
      met: times(cappedTwo, cappedOne) >= 1.6,
    });
    record({ figure: `${what}: where the CPU went, ${capped}: one; two`, value: cpuUse(cappedOne), ceiling: `two: ${cpuUse(cappedTwo)}`, ratio: '—', target: '—', met: null });
  } else {
    record({ figure: `${what} throughput, PostgreSQL, two instances, ${capped}`, value: `not measured: ${f.uncapped}`, ceiling: '—', ratio: '—', target: '≥ 1.6× one instance', met: null });
  }
  const once = [f.duckdb, f.postgresOne, f.postgresTwo, cappedOne, cappedTwo].flatMap((s) => (s ? [s.storedOnce] : []));
  record({
    figure: `every ${what} 2xx stored once (DuckDB, PostgreSQL one, two${cappedOne ? ', capped one, two' : ''})`,
    value: once.join(', '),
    ceiling: '—',
    ratio: '—',
    target: 'true',
    met: once.every(Boolean),
  });
}

if (wanted('refunds')) {
  section = 'refunds';
  log('refunds: a sale run (10 s), then refunds of those sales (3 × 10 s), on one server…');
  const r = await benchRefunds();
  results.refunds = r;
  record({
    figure: 'refund throughput p50 / p99 (32 connections)',
    value: `${spread(r.refunds.rps)}/s, ${r.refunds.p50.median} / ${r.refunds.p99.median} ms`,
    ceiling: `sales on the same server ${fmt(r.sales.rps)}/s`,
    ratio: `${((100 * r.refunds.rps.median) / r.sales.rps).toFixed(0)} %`,
    target: '≥ 50 % of sales, p99 ≤ 50 ms',
    met: r.refunds.rps.median >= r.sales.rps / 2 && r.refunds.p99.median <= 50,
  });
  record({ figure: 'every refund 2xx stored once', value: String(r.refunds.recordedExactly), ceiling: '—', ratio: '—', target: 'true', met: r.refunds.recordedExactly });
}

if (wanted('outbound')) {
  section = 'outbound';
  log('outbound: sales with one subscribed endpoint beside none (3 × 2 × 10 s), a backlog drained, the lag at 1,000 sales/s…');
  const o = await benchOutbound();
  results.outbound = o;
  const ratio = o.sales.subscribed.median / o.sales.none.median;
  record({
    figure: 'sales with one subscribed endpoint (32 connections)',
    value: `${spread(o.sales.subscribed)}/s`,
    ceiling: `no endpoint, same run: ${spread(o.sales.none)}/s`,
    ratio: `${ratio.toFixed(2)}×`,
    target: '≥ 0.9×',
    met: ratio >= 0.9,
  });
  record({
    figure: 'deliveries to a receiver that answers at once',
    value: `${fmt(o.deliveries.perSecond)}/s`,
    ceiling: `a backlog of ${fmt(o.deliveries.backlog)} events`,
    ratio: '—',
    target: '≥ 1,000/s',
    met: o.deliveries.perSecond >= 1000,
  });
  record({
    figure: 'delivery lag p50 / p99 at 1,000 sales/s',
    value: `${fmt(o.lag.p50)} / ${fmt(o.lag.p99)} ms`,
    ceiling: `${fmt(o.lag.delivered)} events`,
    ratio: '—',
    target: 'p99 ≤ 1,000 ms',
    met: o.lag.p99 <= 1000,
  });
}

if (wanted('webhooks')) {
  section = 'webhooks';
  log('webhooks: signed deliveries with new event ids (3 × 10 s)…');
  const w = await benchWebhooks();
  results.webhooks = w;
  record({
    figure: 'webhook deliveries',
    value: `${spread(w.rps)}/s, p99 ${w.p99.median} ms`,
    ceiling: saleRps ? `sales ${fmt(saleRps)}/s` : '(run with sales)',
    ratio: saleRps ? `${((100 * w.rps.median) / saleRps).toFixed(0)} %` : '—',
    target: '≥ 50 % of sales',
    met: saleRps ? w.rps.median >= saleRps / 2 && w.non2xx === 0 : null,
  });
}

if (wanted('clicks')) {
  section = 'clicks';
  log('clicks: bare Fastify, partnerkit serve with unique clicks on and a new visitor per request (3 × 10 s each)…');
  const c = await benchClicks();
  results.clicks = c;
  record({
    figure: 'click throughput p50 / p99 (32 connections, unique clicks on)',
    value: `${spread(c.clicks.rps)}/s, ${c.clicks.p50.median} / ${c.clicks.p99.median} ms`,
    ceiling: `bare Fastify ${fmt(c.bareFastify.rps.median)}/s`,
    ratio: `${((100 * c.clicks.rps.median) / c.bareFastify.rps.median).toFixed(1)} % of bare`,
    target: '≥ 5,000/s, ≥ 40 % of bare, p99 ≤ 50 ms',
    met: c.clicks.rps.median >= 5000 && c.clicks.rps.median >= 0.4 * c.bareFastify.rps.median && c.clicks.p99.median <= 50,
  });
  record({ figure: 'every click 2xx stored once', value: String(c.clicks.storedOnce), ceiling: '—', ratio: '—', target: 'true', met: c.clicks.storedOnce });
}

if (wanted('links')) {
  section = 'links';
  log('links: partner links (GET /r/:refCode) and the click endpoint, interleaved, a new visitor per request (3 × 10 s each)…');
  const l = await benchLinks();
  results.links = l;
  const ratio = l.links.rps.median / l.clicks.rps.median;
  record({
    figure: 'partner link redirects p50 / p99 (32 connections, unique clicks on)',
    value: `${spread(l.links.rps)}/s, ${l.links.p50.median} / ${l.links.p99.median} ms; every 302 a click stored once: ${l.links.storedOnce}`,
    ceiling: `click endpoint ${fmt(l.clicks.rps.median)}/s`,
    ratio: `${(100 * ratio).toFixed(1)} %`,
    target: '≥ 90 % of the click endpoint',
    met: ratio >= 0.9 && l.links.storedOnce,
  });
}

if (wanted('mixed')) {
  section = 'mixed';
  log('mixed: clicks, leads and sales 100 : 10 : 3 for 10 s, the report every second…');
  const m = await benchMixed();
  results.mixed = m;
  record({
    figure: 'mixed clicks : leads : sales = 100 : 10 : 3, report every second',
    value: `${fmt(m.rps)}/s (${fmt(m.sent.clicks)} : ${fmt(m.sent.leads)} : ${fmt(m.sent.sales)} sent), p99 ${m.p99} ms; 5xx ${m.fiveHundreds}, other non-2xx ${m.non2xx - m.fiveHundreds}`,
    ceiling: `report p50 ${m.report.p50} ms`,
    ratio: `report p99 ${m.report.p99} ms (${m.report.runs} runs)`,
    target: 'no 5xx',
    met: m.fiveHundreds === 0,
  });
}

if (wanted('flood')) {
  section = 'flood';
  log('flood: another program\'s sales alone, then beside 128 connections of random keys and 512 of clicks from one address (10 s each)…');
  const f = await benchFlood();
  results.flood = f;
  const { unloaded, flooded } = f.sales;
  const statuses = (s: Record<string, number>) => Object.entries(s).map(([status, n]) => `${status}: ${fmt(n)}`).join(', ');
  record({
    figure: 'sales p99 under a flood (8 connections)',
    value: `${flooded.p99} ms flooded (${fmt(flooded.rps)}/s, 5xx ${flooded.fiveHundreds})`,
    ceiling: `unloaded ${unloaded.p99} ms (${fmt(unloaded.rps)}/s)`,
    ratio: `${(flooded.p99 / unloaded.p99).toFixed(2)}×`,
    target: '≤ 2× unloaded p99',
    met: flooded.p99 <= 2 * unloaded.p99 && flooded.non2xx === 0,
  });
  record({
    figure: 'the flood as answered',
    value: `random keys ${fmt(f.flood.randomKeys.rps)}/s (${statuses(f.flood.randomKeys.statuses)}); one address's clicks ${fmt(f.flood.oneAddressClicks.rps)}/s (${statuses(f.flood.oneAddressClicks.statuses)})`,
    ceiling: '—',
    ratio: '—',
    target: '401/429 only',
    met: null,
  });
}

if (wanted('rate-limits') && process.env.PARTNERKIT_BENCH_DATABASE_URL) {
  section = 'rate-limits';
  log('rate-limits: the counters shared through PostgreSQL, 512 callers for 5 s per figure…');
  const r = await benchRateLimits(process.env.PARTNERKIT_BENCH_DATABASE_URL);
  results.rateLimits = r;
  record({
    figure: 'shared rate limit: one address over its limit',
    value: `${fmt(r.usedUp.shared)} counts/s`,
    ceiling: `in-memory store ${fmt(r.usedUp.local)} counts/s`,
    ratio: `${((100 * r.usedUp.shared) / r.usedUp.local).toFixed(0)} %`,
    target: 'no round trip: ≥ 50 % of in memory',
    met: r.usedUp.shared >= 0.5 * r.usedUp.local,
  });
  record({
    figure: `shared rate limit: distinct addresses under it (${r.distinct.callers} at a time)`,
    value: `${fmt(r.distinct.shared)} counts/s in ${fmt(r.distinct.statementsPerSecond)} statements/s`,
    ceiling: `one upsert per count ${fmt(r.distinct.perRequest)}/s`,
    ratio: `${(r.distinct.shared / r.distinct.perRequest).toFixed(1)}×`,
    target: '—',
    met: null,
  });
}

if (wanted('payouts')) {
  section = 'payouts';
  log('payouts: payout create over HTTP on 100,000 approved commissions of 1,000 partners, beside the raw UPDATE (3 runs each)…');
  const p = await benchPayouts();
  results.payouts = p;
  record({
    figure: `payout create (${fmt(p.commissions)} approved commissions, ${fmt(p.payouts)} payouts)`,
    value: spread(p.create, 2, ' s'),
    ceiling: `raw UPDATE ${fmt(p.rawUpdate.median, 2)} s`,
    ratio: `${(p.create.median / p.rawUpdate.median).toFixed(1)}×`,
    target: '≤ 2 s',
    met: p.create.median <= 2 && p.commissions === 100_000,
  });
}

// Not a target row: the measurement behind the write figures (where the one writer's time goes).
const profiles: Array<[string, WriteProfile]> = [];
if (wanted('profile')) {
  section = 'profile';
  log('profile: statements of the writer under the sale, webhook and click loads (5 s each, in-process server)…');
  for (const workload of ['sales', 'webhooks', 'clicks'] as const) profiles.push([workload, await profileWrites(workload)]);
  results.profile = Object.fromEntries(profiles);
  for (const [workload, p] of profiles) {
    record({
      figure: `writer profile: ${workload}`,
      value: `${fmt(p.requests)} requests in ${fmt(p.batches)} transactions (${fmt(p.requestsPerBatch, 1)} per transaction)`,
      ceiling: '—',
      ratio: `writer inside a statement ${fmt(100 * p.writerBusy)} % of the time`,
      target: '— (measured)',
      met: null,
    });
    for (const st of p.statements.slice(0, 5)) {
      record({ figure: `${workload}: ${st.sql}`, value: `${fmt(st.msEach, 2)} ms each`, ceiling: '—', ratio: `${fmt(st.perBatch, 2)} per transaction`, target: '—', met: null });
    }
  }
}

let demoData: Awaited<ReturnType<typeof demoDataSet>> | undefined;
if (wanted('demo') || wanted('reports')) {
  section = 'demo';
  log(`demo: partnerkit demo --clicks ${fmt(clicks)} (3 runs), and the same rows by SQL (3 runs)…`);
  const d = await benchDemo(clicks);
  demoData = d.keep;
  results.demo = d.figures;
  record({
    figure: `demo loader (${fmt(clicks)} clicks, ${fmt(d.figures.rows)} rows)`,
    value: `${spread(d.figures.seconds, 1, ' s')}, ${fmt(d.figures.rowsPerSecond.median / 1e6, 2)} M rows/s`,
    ceiling: `SQL ${fmt(d.figures.ceilingRowsPerSecond.median / 1e6, 2)} M rows/s`,
    ratio: `${((100 * d.figures.rowsPerSecond.median) / d.figures.ceilingRowsPerSecond.median).toFixed(0)} %`,
    target: '≥ 2 M rows/s, ≥ 25 % of SQL',
    met: d.figures.rowsPerSecond.median >= 2e6 && d.figures.rowsPerSecond.median >= 0.25 * d.figures.ceilingRowsPerSecond.median,
  });
} else if (wanted('preview') || wanted('partners') || wanted('dashboard') || wanted('exports')) {
  log(`partners, dashboard, exports: the reports' data set, partnerkit demo --clicks ${fmt(clicks)} (one load)…`);
  demoData = await demoDataSet(clicks);
}

if (wanted('preview') && demoData) {
  section = 'preview';
  log(`preview: the rule preview over the reports' data set's sales, copied to at least ${fmt(PREVIEW_SALES)}, beside the performance report (20 runs each)…`);
  const p = await benchPreview(demoData);
  results.preview = p;
  record({
    figure: `rule preview, period all, renewals for a month (${fmt(p.sales)} sales${p.own < p.sales ? `: the data set's ${fmt(p.own)} and copies` : ''})`,
    value: `${spread(p.preview, 1)} ms`,
    ceiling: `performance report all ${fmt(p.report.median, 1)} ms`,
    ratio: `${(p.preview.median / p.report.median).toFixed(1)}×`,
    target: '≤ 200 ms over 1 M sales',
    met: p.sales >= PREVIEW_SALES && p.preview.median <= 200,
  });
}

if (wanted('reports') && demoData) {
  section = 'reports';
  log('reports: raw SQL, cold (fresh process) and warm (20 runs) per period…');
  const r = await benchReports(demoData);
  results.reports = r;
  for (const [name, p] of Object.entries(r.periods)) {
    const is90 = name === '90d';
    record({
      figure: `report ${name}: warm / cold`,
      value: `${spread(p.warm, 1)} / ${fmt(p.cold.median, 1)} ms`,
      ceiling: `raw SQL ${fmt(p.rawSql.median, 1)} ms`,
      ratio: `HTTP ${p.httpOverhead < 0 ? '−' : '+'}${fmt(Math.abs(100 * p.httpOverhead), 0)} %`,
      // The rollups' targets (docs/rollups.md#measured): cold is a fresh server's first report. The
      // request's own cost is fixed, so it is held in milliseconds, not as a share of the statement.
      target: is90 ? 'warm ≤ 10, cold ≤ 100 ms, HTTP adds ≤ 5 ms' : 'HTTP adds ≤ 5 ms',
      met: (is90 ? p.warm.median <= 10 && p.cold.median <= 100 : true) && p.warm.median - p.rawSql.median <= 5,
    });
  }
  record({ figure: 'server RSS after the reports', value: `${fmt(r.rssMiB)} MiB`, ceiling: '—', ratio: '—', target: '≤ 512 MiB', met: r.rssMiB <= 512 });

  if (postgres) {
    log(`reports on PostgreSQL: partnerkit demo --clicks ${fmt(clicks)} into a schema of ${new URL(benchDatabaseUrl!).pathname.slice(1)} (one load), then as above…`);
    const p = await benchPostgres(benchDatabaseUrl!, clicks);
    results.postgres = p;
    // DuckDB's loader is the demo section's figure; without that section the row stands alone.
    const duckLoad = results.demo as { seconds: { median: number } } | undefined;
    record({
      figure: `demo loader on PostgreSQL (${fmt(clicks)} clicks, ${fmt(p.load.rows)} rows, 1 run)`,
      value: `${fmt(p.load.seconds, 1)} s, ${fmt(p.load.rowsPerSecond / 1e3)} k rows/s`,
      ceiling: duckLoad ? `DuckDB's loader ${fmt(duckLoad.seconds.median, 1)} s` : '—',
      ratio: duckLoad ? `${(p.load.seconds / duckLoad.seconds.median).toFixed(1)}× the time` : '—',
      target: '— (measured)',
      met: null,
    });
    for (const [name, pp] of Object.entries(p.periods)) {
      const is90 = name === '90d';
      const duck = r.periods[name];
      record({
        figure: `report ${name} on PostgreSQL: warm / cold`,
        value: `${spread(pp.warm, 1)} / ${fmt(pp.cold.median, 1)} ms; raw SQL ${fmt(pp.rawSql.median, 1)} ms`,
        ceiling: `DuckDB warm ${fmt(duck.warm.median, 1)} ms`,
        ratio: `${(pp.warm.median / duck.warm.median).toFixed(2)}× DuckDB`,
        target: is90 ? 'warm ≤ 50 ms' : '—',
        met: is90 ? pp.warm.median <= 50 : null,
      });
    }
    record({ figure: 'PostgreSQL server RSS after the reports', value: `${fmt(p.rssMiB)} MiB`, ceiling: '—', ratio: '—', target: '≤ 512 MiB', met: p.rssMiB <= 512 });
  }
}

if (wanted('partners') && demoData) {
  section = 'partners';
  log('partners: the per-partner report beside the program report, 90 days, warm (20 runs each, interleaved)…');
  const p = await benchPartnerReport(demoData.dataDir, demoData.programId);
  results.partners = p;
  const ratio = p.partners.median / p.program.median;
  record({
    figure: `per-partner report 90d warm (${fmt(p.rows)} partners)`,
    value: `${spread(p.partners, 1)} ms`,
    ceiling: `program report ${fmt(p.program.median, 1)} ms`,
    ratio: `${ratio.toFixed(2)}×`,
    target: '≤ 60 ms, ≤ 1.5× the program report',
    met: p.partners.median <= 60 && ratio <= 1.5,
  });
}

if (wanted('dashboard') && demoData) {
  section = 'dashboard';
  log('dashboard: headless Chromium, navigation to the Overview chart drawn, 90 days, 1 cold + 5 warm loads, a switch to each section after each, the report API beside it…');
  const d = await benchDashboard(demoData.dataDir, demoData.programId);
  results.dashboard = d;
  record({
    figure: `dashboard: navigation → Overview chart drawn (90d, ${fmt(clicks)} clicks, warm)`,
    value: `${spread(d.load)} ms`,
    ceiling: `report API 90d ${fmt(d.report.median, 1)} ms`,
    ratio: `${(d.load.median / d.report.median).toFixed(1)}×`,
    target: '≤ 1,000 ms',
    met: d.load.median <= 1000,
  });
  record({
    figure: 'dashboard: section switch (a link → its list shown, no reload)',
    value: `${spread(d.switches)} ms`,
    ceiling: `Overview load ${fmt(d.load.median)} ms`,
    ratio: `${(d.switches.median / 300).toFixed(2)}× the target`,
    target: '≤ 300 ms',
    met: d.switches.median <= 300,
  });
  for (const [page, size] of Object.entries(d.bundles)) {
    record({
      figure: `${page} page: JS / CSS gzipped`,
      value: `${fmt(size.js / 1024, 1)} / ${fmt(size.css / 1024, 1)} KB`,
      ceiling: 'budget 150 KB of JS',
      ratio: `${((100 * size.js) / (150 * 1024)).toFixed(0)} % of the budget`,
      target: 'JS ≤ 150 KB',
      met: size.js <= 150 * 1024,
    });
  }
}
if (wanted('exports') && demoData) {
  section = 'exports';
  log('exports: the Parquet export of the clicks beside a raw COPY of the table, 3 runs each, interleaved…');
  const e = await benchExports(demoData.dataDir, demoData.programId);
  results.exports = e;
  const rate = (s: { median: number }) => e.rows / (s.median / 1000);
  const share = rate(e.export) / rate(e.rawCopy);
  record({
    figure: `Parquet export of ${fmt(e.rows)} clicks`,
    value: `${fmt(rate(e.export) / 1e6, 2)} M rows/s (${spread(e.export)} ms, ${fmt(e.exportMiB)} MiB)`,
    ceiling: `raw COPY ${fmt(rate(e.rawCopy) / 1e6, 2)} M rows/s (${fmt(e.rawMiB)} MiB)`,
    ratio: `${(100 * share).toFixed(0)} %`,
    target: '≥ 70 % of the raw COPY',
    met: share >= 0.7,
  });
  if (process.env.PARTNERKIT_BENCH_DATABASE_URL) {
    log('exports: the same export from PostgreSQL beside the DuckDB file and a bare COPY of the rows out of PostgreSQL, 3 runs each, interleaved…');
    const p = await benchPostgresExports(demoData.dataDir, demoData.programId, process.env.PARTNERKIT_BENCH_DATABASE_URL);
    results.postgresExports = p;
    const rate = (s: { median: number }) => p.rows / (s.median / 1000);
    record({
      figure: `Parquet export of ${fmt(p.rows)} clicks from PostgreSQL`,
      value: `${fmt(rate(p.postgres) / 1e6, 2)} M rows/s (${spread(p.postgres)} ms), ${p.identical ? 'the same bytes as' : 'NOT the bytes of'} the DuckDB file's`,
      ceiling: `COPY out of PostgreSQL ${fmt(rate(p.copyOut) / 1e6, 2)} M rows/s; DuckDB file ${fmt(rate(p.duckdb) / 1e6, 2)} M rows/s`,
      ratio: `${(p.postgres.median / p.copyOut.median).toFixed(1)}× the COPY out, ${(p.postgres.median / p.duckdb.median).toFixed(1)}× the DuckDB file`,
      target: 'the same bytes',
      met: p.identical,
    });
  }
}
demoData?.remove();

if (wanted('scaling')) {
  section = 'scaling';
  log(`scaling: 90-day report at ${scalingSizes.map((n) => fmt(n)).join(', ')} generated clicks…`);
  const s = await benchScaling(scalingSizes);
  results.scaling = s;
  // Reports read rollups (docs/rollups.md#why): their cost follows days, not clicks, so every size
  // is held to 1.5× the time at 10 M clicks (the smallest size when 10 M is not measured).
  const base = s.find((point) => point.clicks === 10_000_000) ?? s[0];
  for (const point of s) {
    const ratio = point.warm.median / base.warm.median;
    record({
      figure: `report 90d warm at ${fmt(point.clicks)} clicks`,
      value: `${spread(point.warm, 1)} ms, RSS ${fmt(point.rssMiB)} MiB`,
      ceiling: `${fmt(base.clicks)} clicks: ${fmt(base.warm.median, 1)} ms`,
      ratio: `${ratio.toFixed(2)}× time for ${(point.clicks / base.clicks).toFixed(1)}× rows`,
      target: `≤ 1.5× the ${fmt(base.clicks)} figure${point.clicks === 10_000_000 ? '; ≤ 10 ms' : ''}`,
      met: ratio <= 1.5 && (point.clicks !== 10_000_000 || point.warm.median <= 10),
    });
  }
}

const table = new Table({ head: ['figure', 'median (min–max)', 'ceiling', 'ratio', 'target', 'met'], style: { head: [], border: [] }, wordWrap: true });
for (const r of rows) table.push([r.figure, r.value, r.ceiling, r.ratio, r.target, r.met === null ? '—' : r.met ? 'yes' : 'NO']);
if (rows.length > 0) console.log(table.toString());
for (const [workload, p] of profiles) {
  console.log(
    `\nWriter profile, ${workload}: ${fmt(p.requests)} requests in ${fmt(p.batches)} transactions (${fmt(p.requestsPerBatch, 1)} per transaction); ` +
      `the writer connection was inside a statement ${fmt(100 * p.writerBusy)} % of the time`,
  );
  const statements = new Table({ head: ['statement', 'per transaction', 'ms each', 'ms per transaction'], style: { head: [], border: [] } });
  for (const st of p.statements.slice(0, 12)) statements.push([st.sql, fmt(st.perBatch, 2), fmt(st.msEach, 2), fmt(st.msPerBatch, 2)]);
  console.log(statements.toString());
}
results.table = rows;
// The raw figures behind each section's rows, under the names the blocks above gave them.
const DATA_KEYS: Record<string, string[]> = {
  'rate-limits': ['rateLimits'],
  reports: ['reports', 'postgres'],
  exports: ['exports', 'postgresExports'],
  'sales-postgres': ['salesInstances'],
  'clicks-postgres': ['clicksInstances'],
};
const machine = `${cpus().length} cores, Node ${process.version}${clicks === 10_000_000 ? '' : `, BENCH_CLICKS=${clicks}`}`;
const run: BenchResults = { sections: {} };
for (const name of new Set(rows.map((r) => r.section))) {
  const data = Object.fromEntries((DATA_KEYS[name] ?? [name]).filter((key) => results[key] !== undefined).map((key) => [key, results[key]]));
  const sectionRun: SectionRun = {
    ranAt: String(results.startedAt).slice(0, 10),
    machine,
    rows: rows.filter((r) => r.section === name).map(({ section: _, ...row }) => row),
    data,
  };
  run.sections[name] = sectionRun;
}
const root = resolve(import.meta.dirname, '../..');
const resultsPath = resolve(root, 'bench/results.json');
const merged = mergeResults(existsSync(resultsPath) ? (JSON.parse(readFileSync(resultsPath, 'utf8')) as BenchResults) : { sections: {} }, run);
if (!docsOnly) {
  writeFileSync(resultsPath, `${JSON.stringify(merged, null, 2)}\n`);
  console.log(`sections ${Object.keys(run.sections).join(', ') || '(none)'} written to bench/results.json`);
}
writeFileSync(resolve(root, 'docs/benchmarks.md'), renderBenchmarks(readFileSync(resolve(root, 'bench/benchmarks-intro.md'), 'utf8'), merged));
console.log('docs/benchmarks.md written');
