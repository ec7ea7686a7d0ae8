import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { load, NO_LIMITS, serve, summarize, tempDir, type Summary } from './lib.js';
import { provision, saleBody } from './sales.js';

const CONNECTIONS = 32;
const SECONDS = 10;

export type RefundFigures = {
  refunds: { rps: Summary; p50: Summary; p99: Summary; recordedExactly: boolean };
  /** The sales the refunds are taken from: one run on the same server, just before. */
  sales: { rps: number; recorded: number };
};

/**
 * Refunds of 1 to 5 cents with unique refund ids, spread over the recorded sales (each changes its
 * sale's pending commission), beside the sale throughput of the same server measured just before.
 */
export async function benchRefunds(runs = 3): Promise<RefundFigures> {
  const dir = tempDir('refunds');
  const server = await serve(dir.path, NO_LIMITS);
  try {
    const adminToken = readFileSync(join(dir.path, 'admin-token'), 'utf8').trim();
    const program = await provision(server.url, adminToken);
    const headers = { authorization: `Bearer ${program.apiKey}` };
    const sales = await load({ url: server.url, path: '/api/v1/track/sale', connections: CONNECTIONS, seconds: SECONDS, headers, body: saleBody() });
    let seq = 0;
    const body = () => {
      seq++;
      return JSON.stringify({ transaction_id: `bench_${1 + (seq % sales.ok)}`, refund_id: `re_bench_${seq}`, amount_cents: 1 + (seq % 5) });
    };
    const results = [];
    for (let run = 0; run < runs; run++) results.push(await load({ url: server.url, path: '/api/v1/track/refund', connections: CONNECTIONS, seconds: SECONDS, headers, body }));
    await server.stop();
    // Every 2xx is one refund; requests in flight when a run ends are stored but not counted, at most CONNECTIONS per run.
    const acknowledged = results.reduce((sum, r) => sum + r.ok, 0);
    const instance = await DuckDBInstance.create(join(dir.path, 'partnerkit.duckdb'));
    const connection = await instance.connect();
    const stored = Number((await connection.runAndReadAll('SELECT count(*) AS n FROM refunds')).getRowObjectsJS()[0].n);
    connection.closeSync();
    instance.closeSync();
    return {
      refunds: {
        rps: summarize(results.map((r) => r.rps)),
        p50: summarize(results.map((r) => r.p50)),
        p99: summarize(results.map((r) => r.p99)),
        recordedExactly: results.every((r) => r.non2xx === 0) && stored >= acknowledged && stored <= acknowledged + CONNECTIONS * runs,
      },
      sales: { rps: sales.rps, recorded: sales.ok },
    };
  } finally {
    await server.stop();
    dir.remove();
  }
}
