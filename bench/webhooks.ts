import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { signStripePayload } from '../src/cli/stripe-fixtures.js';
import { load, NO_LIMITS, serve, summarize, tempDir, type Summary } from './lib.js';
import { provision } from './sales.js';

const FIXTURE = resolve(import.meta.dirname, '../../fixtures/stripe/checkout-one-time.json');

/**
 * Signed checkout.session.completed deliveries, each with a new event id and a new payment, so
 * every delivery verifies its signature, stores its event and records a sale with its commission.
 */
export function webhookDeliveries(program: Awaited<ReturnType<typeof provision>>) {
  const template = readFileSync(FIXTURE, 'utf8').replaceAll('{{PROGRAM_ID}}', String(program.id));
  let seq = 0;
  return {
    path: `/api/v1/webhooks/stripe/${program.id}`,
    body: () => {
      const n = ++seq;
      const event = JSON.parse(template.replace('{{CLICK_ID}}', program.clickIds[n % program.clickIds.length]).replace('{{CUSTOMER_KEY}}', `c${n % program.clickIds.length}`));
      event.id = `evt_bench_${n}`;
      event.created = Math.floor(Date.now() / 1000);
      event.data.object.id = `cs_bench_${n}`;
      event.data.object.payment_intent = `pi_bench_${n}`;
      return JSON.stringify(event);
    },
    // autocannon builds the body first; the signature header is computed from it per request.
    headersFor: (payload: string) => ({
      'stripe-signature': signStripePayload(payload, program.webhookSecret, Math.floor(Date.now() / 1000)),
    }),
  };
}

export async function benchWebhooks(runs = 3, connections = 32, seconds = 10): Promise<{ rps: Summary; p99: Summary; ok: number; non2xx: number }> {
  const dir = tempDir('webhooks');
  const server = await serve(dir.path, NO_LIMITS);
  try {
    const adminToken = readFileSync(join(dir.path, 'admin-token'), 'utf8').trim();
    const deliveries = webhookDeliveries(await provision(server.url, adminToken));
    const results = [];
    for (let run = 0; run < runs; run++) {
      results.push(await load({ url: server.url, connections, seconds, ...deliveries }));
    }
    return {
      rps: summarize(results.map((r) => r.rps)),
      p99: summarize(results.map((r) => r.p99)),
      ok: results.reduce((a, r) => a + r.ok, 0),
      non2xx: results.reduce((a, r) => a + r.non2xx, 0),
    };
  } finally {
    await server.stop();
    dir.remove();
  }
}
