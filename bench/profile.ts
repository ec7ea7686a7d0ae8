import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { sha256 } from '../src/domain/secrets.js';
import { DEFAULT_EDGE } from '../src/http/deps.js';
import { DuckDBStore } from '../src/store/duckdb-store.js';
import { clickRequests } from './clicks.js';
import { load, tempDir } from './lib.js';
import { provision, saleBody } from './sales.js';
import { webhookDeliveries } from './webhooks.js';

export type WriteProfile = {
  requests: number;
  batches: number;
  requestsPerBatch: number;
  /** Share of the wall time the writer connection spent inside a statement. */
  writerBusy: number;
  statements: Array<{ sql: string; perBatch: number; msEach: number; msPerBatch: number }>;
};

const ADMIN_TOKEN = 'pka_bench_profile';

/**
 * Where the writer's time goes: the app in this process on a file store whose writer connection
 * reports every statement, under the same load as the headline figures (32 connections). Shows
 * the statements a batch of sales, webhook deliveries or clicks costs and how busy the one writer is.
 */
export async function profileWrites(workload: 'sales' | 'webhooks' | 'clicks', seconds = 5): Promise<WriteProfile> {
  const dir = tempDir('profile');
  const timings = new Map<string, { count: number; ms: number }>();
  let recording = false;
  const store = await DuckDBStore.open(join(dir.path, 'partnerkit.duckdb'), {
    observeWrites: (sql, ms) => {
      if (!recording) return;
      const key = sql.replace(/\s+/g, ' ').trim().slice(0, 60);
      const entry = timings.get(key) ?? { count: 0, ms: 0 };
      entry.count++;
      entry.ms += ms;
      timings.set(key, entry);
    },
  });
  const unlimited = { max: 100_000_000, windowSeconds: 1 };
  const app = await buildApp({
    store,
    clock: systemClock,
    adminTokenHash: sha256(ADMIN_TOKEN),
    rateLimit: unlimited,
    ...DEFAULT_EDGE,
    clicks: { ...DEFAULT_EDGE.clicks, rateLimit: unlimited },
    trustProxy: true,
  });
  try {
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const program = await provision(url, ADMIN_TOKEN);
    const targets = {
      sales: () => ({ path: '/api/v1/track/sale', headers: { authorization: `Bearer ${program.apiKey}` }, body: saleBody() }),
      webhooks: () => webhookDeliveries(program),
      clicks: () => clickRequests(program.refCode),
    };
    const target = targets[workload]();
    recording = true;
    const started = performance.now();
    const result = await load({ url, connections: 32, seconds, ...target });
    const wallMs = performance.now() - started;
    recording = false;
    const batches = timings.get('COMMIT')?.count ?? 0;
    const busyMs = [...timings.values()].reduce((sum, t) => sum + t.ms, 0);
    return {
      requests: result.ok,
      batches,
      requestsPerBatch: result.ok / batches,
      writerBusy: busyMs / wallMs,
      statements: [...timings]
        .map(([sql, t]) => ({ sql, perBatch: t.count / batches, msEach: t.ms / t.count, msPerBatch: t.ms / batches }))
        .sort((a, b) => b.msPerBatch - a.msPerBatch),
    };
  } finally {
    await app.close();
    await store.close();
    dir.remove();
  }
}
