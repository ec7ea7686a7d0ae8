import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { api, bareFastifyRuns, load, NO_LIMITS, serve, summarize, tempDir, visitorAddress, type LoadResult, type Summary } from './lib.js';

const CONNECTIONS = 32;
const SECONDS = 10;
const CUSTOMERS = 1000;

export type SalesFigures = {
  sales: { rps: Summary; p50: Summary; p99: Summary; recordedExactly: boolean };
  bareFastify: { rps: Summary };
  rawStore: { rps: Summary };
  duplicateStorm: { rounds: number; exactlyOnePerRound: boolean; fiveHundreds: number };
};

/** A program with CUSTOMERS attributed customers, provisioned through the running server. */
export async function provision(url: string, adminToken: string, customers = CUSTOMERS, programFields: Record<string, unknown> = {}) {
  const program = await api(url, '/api/admin/programs', adminToken, { name: 'Bench', ...programFields });
  const partner = await api(url, '/api/admin/partners', adminToken, { name: 'P', email: `p${Date.now()}@example.com` });
  const enrollment = await api(url, `/api/admin/programs/${program.id}/partners`, adminToken, { partnerId: partner.id });
  const clickIds: string[] = [];
  for (let i = 0; i < customers; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, customers - i) }, async (_, j) => {
        // A server-side click per customer, each a visitor of its own (docs/tracking.md#post-apiv1trackclick, docs/tracking.md#unique-clicks).
        const click = await api(url, '/api/v1/track/click', program.apiKey, { ref: enrollment.refCode, ip: visitorAddress(i + j) });
        clickIds[i + j] = click.click_id;
        await api(url, '/api/v1/track/lead', program.apiKey, { customer_key: `c${i + j}`, click_id: click.click_id });
      }),
    );
  }
  return { ...(program as { id: number; apiKey: string; webhookSecret: string }), refCode: enrollment.refCode as string, clickIds };
}

/** Sale bodies with unique transaction ids (`<prefix>_1`, …), spread over the provisioned customers. */
export function saleBody(prefix = 'bench'): () => string {
  let seq = 0;
  return () => JSON.stringify({ transaction_id: `${prefix}_${++seq}`, amount_cents: 1000 + (seq % 5000), customer_key: `c${seq % CUSTOMERS}` });
}

async function saleRuns(runs: number): Promise<{ results: LoadResult[]; recordedExactly: boolean }> {
  const dir = tempDir('sales');
  const server = await serve(dir.path, NO_LIMITS);
  try {
    const adminToken = readFileSync(join(dir.path, 'admin-token'), 'utf8').trim();
    const program = await provision(server.url, adminToken);
    const body = saleBody();
    const results: LoadResult[] = [];
    for (let run = 0; run < runs; run++) {
      results.push(
        await load({
          url: server.url,
          path: '/api/v1/track/sale',
          connections: CONNECTIONS,
          seconds: SECONDS,
          headers: { authorization: `Bearer ${program.apiKey}` },
          body,
        }),
      );
    }
    // Every 2xx is one sale with its commission. Requests still in flight when a run ends are
    // recorded but not counted by autocannon, so at most CONNECTIONS per run more are stored.
    await server.stop();
    const acknowledged = results.reduce((sum, r) => sum + r.ok, 0);
    const instance = await DuckDBInstance.create(join(dir.path, 'partnerkit.duckdb'));
    const connection = await instance.connect();
    const counts = (await connection.runAndReadAll('SELECT (SELECT count(*) FROM sale_events) s, (SELECT count(*) FROM commissions) c')).getRowObjectsJS()[0];
    connection.closeSync();
    instance.closeSync();
    const stored = Number(counts.s);
    const recordedExactly = stored === Number(counts.c) && stored >= acknowledged && stored <= acknowledged + CONNECTIONS * runs;
    return { results, recordedExactly };
  } finally {
    await server.stop();
    dir.remove();
  }
}

/** Ceiling (b): one sale and its commission per DuckDB transaction, from a plain loop. */
async function rawStoreRuns(runs: number): Promise<number[]> {
  const dir = tempDir('raw');
  try {
    const { DuckDBStore } = await import('../src/store/duckdb-store.js');
    const { insertCommissions, insertSaleEvents } = await import('../src/store/sales.js');
    const store = await DuckDBStore.open(join(dir.path, 'partnerkit.duckdb'));
    const rps: number[] = [];
    let id = 0;
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      let done = 0;
      while (performance.now() - started < 5000) {
        id++;
        const at = new Date();
        await store.transaction(async (sql) => {
          // Through append(), as the service writes them: with their rollups (docs/rollups.md#how-writes-keep-them).
          await insertSaleEvents(sql, [{
            id, program_id: 1, customer_id: 1, partner_program_id: 1, transaction_id: `raw_${id}`, amount_cents: 1000, tax_cents: null, currency: 'USD',
            sale_type: 'payment', is_recurring: false, subscription_id: null, subscription_interval: null, product_id: null, provider: null,
            provider_payment_id: null, line_items: null, source: 'api', status: 'paid', occurred_at: null, received_at: at, payment_intent_id: null, charge_id: null,
          }]);
          await insertCommissions(sql, [{
            id, program_id: 1, sale_id: id, partner_program_id: 1, amount_cents: 200, currency: 'USD', status: 'pending', hold_until: at, created_at: at,
            type: 'sale', payout_id: null, paid_at: null, reason: null, percent_bp: null,
          }]);
        });
        done++;
      }
      rps.push(done / ((performance.now() - started) / 1000));
    }
    await store.close();
    return rps;
  } finally {
    dir.remove();
  }
}

/** 50 concurrent identical sales, 20 rounds: exactly one 200 per round, the rest 409 naming it. */
async function duplicateStorm(rounds = 20): Promise<SalesFigures['duplicateStorm']> {
  const dir = tempDir('storm');
  const server = await serve(dir.path, NO_LIMITS);
  try {
    const adminToken = readFileSync(join(dir.path, 'admin-token'), 'utf8').trim();
    const program = await provision(server.url, adminToken, 1);
    let exactlyOne = true;
    let fiveHundreds = 0;
    for (let round = 0; round < rounds; round++) {
      const body = JSON.stringify({ transaction_id: `storm_${round}`, amount_cents: 1000, customer_key: 'c0' });
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          fetch(`${server.url}/api/v1/track/sale`, {
            method: 'POST',
            body,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${program.apiKey}` },
          }).then(async (r) => ({ status: r.status, body: (await r.json()) as any })),
        ),
      );
      const created = answers.filter((a) => a.status === 200);
      fiveHundreds += answers.filter((a) => a.status >= 500).length;
      const saleId = created[0]?.body.sale_id;
      const rest = answers.filter((a) => a.status === 409 && a.body.error.details.sale_id === saleId);
      if (created.length !== 1 || rest.length !== 49) exactlyOne = false;
    }
    return { rounds, exactlyOnePerRound: exactlyOne, fiveHundreds };
  } finally {
    await server.stop();
    dir.remove();
  }
}

export async function benchSales(runs = 3): Promise<SalesFigures> {
  const bare = await bareFastifyRuns('/api/v1/track/sale', JSON.stringify({ transaction_id: 'x', amount_cents: 1000, customer_key: 'c1' }), CONNECTIONS, runs);
  const raw = await rawStoreRuns(runs);
  const sales = await saleRuns(runs);
  const storm = await duplicateStorm();
  return {
    sales: {
      rps: summarize(sales.results.map((r) => r.rps)),
      p50: summarize(sales.results.map((r) => r.p50)),
      p99: summarize(sales.results.map((r) => r.p99)),
      recordedExactly: sales.recordedExactly,
    },
    bareFastify: { rps: summarize(bare) },
    rawStore: { rps: summarize(raw) },
    duplicateStorm: storm,
  };
}
