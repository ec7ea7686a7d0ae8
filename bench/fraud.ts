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

/** A program a comparison sends sales to, set up on the server at `url`. */
type Variant = (url: string, adminToken: string) => Promise<{ apiKey: string }>;

/**
 * Sales per second of two programs of one server, set up as `variants` says, their runs interleaved
 * (a, b, a, b…) so both see the same machine.
 */
async function compareSales<K extends string>(variants: Record<K, Variant>, runs: number): Promise<Record<K, Summary>> {
  const dir = tempDir('compare');
  const server = await serve(dir.path, NO_LIMITS);
  try {
    const adminToken = readFileSync(join(dir.path, 'admin-token'), 'utf8').trim();
    const programs: Array<[K, { apiKey: string }]> = [];
    for (const name of Object.keys(variants) as K[]) programs.push([name, await variants[name](server.url, adminToken)]);
    const rps = Object.fromEntries(programs.map(([name]) => [name, [] as number[]])) as Record<K, number[]>;
    for (let run = 0; run < runs; run++) {
      for (const [name, program] of programs) {
        const result = await load({
          url: server.url, path: '/api/v1/track/sale', connections: CONNECTIONS, seconds: SECONDS,
          headers: { authorization: `Bearer ${program.apiKey}` }, body: saleBody(`${name}${run}`),
        });
        rps[name].push(result.rps);
      }
    }
    return Object.fromEntries(programs.map(([name]) => [name, summarize(rps[name])])) as Record<K, Summary>;
  } finally {
    await server.stop();
    dir.remove();
  }
}

/** Sales per second with every fraud rule off beside every rule on (docs/fraud.md#rules-on-the-write-path). */
export function benchFraud(runs = 3): Promise<FraudFigures> {
  return compareSales(
    {
      off: (url, token) => provision(url, token, undefined, { fraudRules: OFF }),
      on: (url, token) => provision(url, token, undefined, { fraudRules: ON }),
    },
    runs,
  );
}

export type GroupFigures = { plain: Summary; groups: Summary };

/**
 * Sales per second of a program without groups beside one whose partner is in a group with a
 * reward and thresholds on both metrics (docs/groups.md#automatic-moves), never reached, so every
 * batch reads the figures it compares.
 */
export function benchGroups(runs = 3): Promise<GroupFigures> {
  return compareSales(
    {
      plain: (url, token) => provision(url, token),
      groups: async (url, token) => {
        const program = await provision(url, token);
        const groups = `/api/programs/${program.id}/groups`;
        const gold = await api(url, groups, token, { name: 'Gold', commissionPercent: 25 });
        const silver = await api(url, groups, token, { name: 'Silver', commissionPercent: 15, nextGroupId: gold.id, threshold: { metric: 'conversions', value: 1e12, window: '30d' } });
        await api(url, groups, token, { name: 'Starter', commissionPercent: 10, default: true, nextGroupId: silver.id, threshold: { metric: 'revenue', value: 1e15, window: 'all' } });
        return program;
      },
    },
    runs,
  );
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
