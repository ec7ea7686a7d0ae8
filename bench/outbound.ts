import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { api, load, NO_LIMITS, serve, summarize, tempDir, type Summary } from './lib.js';
import { provision, saleBody } from './sales.js';

const CONNECTIONS = 32;
const SECONDS = 10;
/** Shorter than the attempt timeout: the held requests are answered before they fail. */
const BACKLOG_SECONDS = 5;
const STEADY_RATE = 1000;

export type OutboundFigures = {
  /** Sales per second of a program without endpoints and of one with an endpoint, alternately, on one server. */
  sales: { none: Summary; subscribed: Summary };
  /** Deliveries per second while a backlog of `backlog` events drains to a receiver that answers at once. */
  deliveries: { perSecond: number; backlog: number };
  /** Milliseconds from a sale's commit (its event's created_at) to its arrival, at STEADY_RATE sales per second. */
  lag: { p50: number; p99: number; delivered: number };
};

/**
 * A receiver on 127.0.0.1 answering 204 at once, or holding every request while `held`; once
 * `timeLags` is called, the lag of each event's arrival behind its created_at (parsing the bodies
 * costs this process CPU that the load it generates shares).
 */
async function receiver() {
  const lagsMs: number[] = [];
  const held: ServerResponse[] = [];
  let holding = false;
  let timing = false;
  let count = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      count++;
      if (timing) lagsMs.push(Date.now() - Date.parse(JSON.parse(Buffer.concat(chunks).toString()).created_at));
      if (holding) held.push(res);
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    lagsMs,
    count: () => count,
    timeLags: () => void (timing = true),
    hold: () => void (holding = true),
    release: () => {
      holding = false;
      for (const res of held.splice(0)) res.writeHead(204).end();
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(resolve);
    }),
  };
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? 0;

/**
 * The outbox's cost and speed (docs/outbound-webhooks.md#the-outbox): sales of a program with one
 * subscribed endpoint beside a program without, alternately on one server; a backlog drained to a
 * receiver that answers at once; and the delivery lag at a steady 1,000 sales per second.
 */
export async function benchOutbound(runs = 3): Promise<OutboundFigures> {
  const dir = tempDir('outbound');
  const server = await serve(dir.path, NO_LIMITS);
  const hooks = await receiver();
  try {
    const adminToken = readFileSync(join(dir.path, 'admin-token'), 'utf8').trim();
    const plain = await provision(server.url, adminToken);
    const subscribed = await provision(server.url, adminToken);
    await api(server.url, `/api/programs/${subscribed.id}/webhook-endpoints`, adminToken, { url: hooks.url, events: ['sale.created'] });
    const sales = (program: typeof plain, prefix: string, seconds = SECONDS, rate?: number) =>
      load({ url: server.url, path: '/api/v1/track/sale', connections: CONNECTIONS, seconds, rate, headers: { authorization: `Bearer ${program.apiKey}` }, body: saleBody(prefix) });
    const none: number[] = [];
    const withEndpoint: number[] = [];
    // In turns, one order then the other (none, with, with, none, …), so a server that slows as its tables grow favours neither.
    for (let run = 0; run < runs; run++) {
      const turns = [async () => none.push((await sales(plain, `plain${run}`)).rps), async () => withEndpoint.push((await sales(subscribed, `sub${run}`)).rps)];
      for (const turn of run % 2 === 0 ? turns : turns.reverse()) await turn();
    }
    await waitFor(() => settled(hooks.count()), 60_000);

    // A backlog: sales while the receiver holds its requests, then released; deliveries counted as it drains.
    // The requests held arrived before the release: the drain is counted from the events not yet arrived.
    const atHold = hooks.count();
    hooks.hold();
    const backlog = await sales(subscribed, 'backlog', BACKLOG_SECONDS);
    const atRelease = hooks.count();
    const started = performance.now();
    hooks.release();
    await waitFor(() => hooks.count() - atHold >= backlog.ok, 120_000);
    const perSecond = ((hooks.count() - atRelease) * 1000) / (performance.now() - started);

    hooks.timeLags();
    const steady = await sales(subscribed, 'steady', SECONDS, STEADY_RATE);
    await waitFor(() => hooks.lagsMs.length >= steady.ok, 30_000);
    return {
      sales: { none: summarize(none), subscribed: summarize(withEndpoint) },
      deliveries: { perSecond, backlog: backlog.ok },
      lag: { p50: percentile(hooks.lagsMs, 50), p99: percentile(hooks.lagsMs, 99), delivered: hooks.lagsMs.length },
    };
  } finally {
    await server.stop();
    await hooks.close();
    dir.remove();
  }
}

let last = -1;
/** True once the count of arrivals stopped moving between two looks: the deliveries caught up. */
function settled(count: number): boolean {
  const still = count === last;
  last = count;
  return still;
}

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
}
