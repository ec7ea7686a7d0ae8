import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkoutEvents, FAKE_STRIPE_KEY, startFakeStripe } from './fake-stripe.js';
import { api, load, NO_LIMITS, serve, summarize, tempDir, type Summary } from './lib.js';
import { provision, saleBody } from './sales.js';

const CONNECTIONS = 32;
const SECONDS = 10;
/** Events a reconciliation reads from the local fake of Stripe's API. */
const EVENTS = 10_000;

export type FraudFigures = { off: Summary; on: Summary };
export type ReconcileFigures = { events: number; seconds: number; perSecond: number; recorded: number };

const OFF = { selfReferral: 'off', disposableEmail: 'off', fastConversion: 'off', refundRate: 'off' };
/** Every rule checked; fast_conversion fires on each sale (its click is seconds old) and writes a fraud event. */
const ON = { selfReferral: 'hold', disposableEmail: 'flag', fastConversion: 'flag', refundRate: 'flag' };

/**
 * Sales per second with every fraud rule off beside every rule on (docs/fraud.md#rules-on-the-write-path):
 * two programs of one server, their runs interleaved (off, on, off, on…) so both see the same machine.
 */
export async function benchFraud(runs = 3): Promise<FraudFigures> {
  const dir = tempDir('fraud');
  const server = await serve(dir.path, NO_LIMITS);
  try {
    const adminToken = readFileSync(join(dir.path, 'admin-token'), 'utf8').trim();
    const off = await provision(server.url, adminToken, undefined, { fraudRules: OFF });
    const on = await provision(server.url, adminToken, undefined, { fraudRules: ON });
    const rps = { off: [] as number[], on: [] as number[] };
    for (let run = 0; run < runs; run++) {
      for (const [name, program] of [['off', off], ['on', on]] as const) {
        const result = await load({
          url: server.url, path: '/api/v1/track/sale', connections: CONNECTIONS, seconds: SECONDS,
          headers: { authorization: `Bearer ${program.apiKey}` }, body: saleBody(`${name}${run}`),
        });
        rps[name].push(result.rps);
      }
    }
    return { off: summarize(rps.off), on: summarize(rps.on) };
  } finally {
    await server.stop();
    dir.remove();
  }
}

/** A reconciliation of EVENTS checkouts served by the local fake of Stripe's API (docs/stripe-reconciliation.md), timed from the request to its answer. */
export async function benchReconcile(): Promise<ReconcileFigures> {
  const fake = await startFakeStripe();
  const dir = tempDir('reconcile');
  const server = await serve(dir.path, NO_LIMITS, { PARTNERKIT_STRIPE_API_BASE: fake.url });
  try {
    const adminToken = readFileSync(join(dir.path, 'admin-token'), 'utf8').trim();
    const program = await provision(server.url, adminToken, 1, { stripeApiKey: FAKE_STRIPE_KEY });
    const values = { CLICK_ID: program.clickIds[0], CUSTOMER_KEY: 'c0', PROGRAM_ID: String(program.id) };
    fake.events.push(...checkoutEvents(EVENTS, values, Math.floor(Date.now() / 1000) - 60));
    const started = performance.now();
    const report = await api(server.url, `/api/programs/${program.id}/stripe/reconcile`, adminToken, {});
    const seconds = (performance.now() - started) / 1000;
    return { events: EVENTS, seconds, perSecond: EVENTS / seconds, recorded: report.recordedNow.length };
  } finally {
    await server.stop();
    dir.remove();
    await fake.close();
  }
}
