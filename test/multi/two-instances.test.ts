import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { shiftEventTimes } from '../../src/cli/stripe-fixtures.js';
import type { Store } from '../../src/store/db.js';
import { startServe, tempDataDir, until, type ServeProcess } from '../helpers/cli.js';
import { openTestStore, TEST_DATABASE_URL } from '../helpers/engine.js';
import { factories, httpFactoryApi, type FactoryApi } from '../helpers/factories.js';
import { fixture, postWebhook, SUBSCRIPTION, SUBSCRIPTION_SALES } from '../helpers/stripe.js';
import { counts, delta, salesOf, seededRandom, shuffle } from '../faults/support.js';

/*
 * Two real `partnerkit serve` processes (dist/: `npm run build` first) on one PostgreSQL database,
 * every request of a race split between them: each guarantee of one instance holds across both
 * (docs/testing.md#postgresql-and-several-instances). `npm run test:postgres` runs this folder; the DuckDB run leaves it out.
 */
if (!TEST_DATABASE_URL) throw new Error('test/multi runs on PostgreSQL only: npm run test:postgres, or set PARTNERKIT_TEST_DATABASE_URL');

/** The service clock of both instances (docs/api.md#time-and-the-one-clock): the webhook fixtures' day. */
const NOW = '2026-03-01T12:05:00.000Z';
const SERVE_ARGS = ['--rate-limit', '1000000', '--click-rate-limit', '1000000'];
const SEED = 18_2026;

type Instances = {
  dataDir: string;
  adminToken: string;
  servers: ServeProcess[];
  /** The HTTP API through each server. */
  apis: FactoryApi[];
  /** Factories through the first server. */
  make: ReturnType<typeof factories>;
};

/**
 * Both servers on one data dir, so with the same admin token and database (test/helpers/engine.ts),
 * the clock at `now`. They start one after the other: each waits for the discovery file to name it.
 */
async function startBoth(dataDir: string, now: string): Promise<ServeProcess[]> {
  return [await startServe(dataDir, SERVE_ARGS, { PARTNERKIT_NOW: now }), await startServe(dataDir, SERVE_ARGS, { PARTNERKIT_NOW: now })];
}

async function twoInstances(): Promise<Instances> {
  const dataDir = tempDataDir();
  const servers = await startBoth(dataDir, NOW);
  const adminToken = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
  const apis = servers.map((server) => httpFactoryApi(server.url, adminToken));
  return { dataDir, adminToken, servers, apis, make: factories(apis[0]) };
}

/** Both servers killed (-9) and started again with the clock at `now`. */
async function restartBoth(two: Instances, now: string): Promise<void> {
  for (const server of two.servers) await server.stop('SIGKILL');
  two.servers = await startBoth(two.dataDir, now);
  two.apis = two.servers.map((server) => httpFactoryApi(server.url, two.adminToken));
}

/** `n` requests at once, the i-th through server i mod 2; their answers in that order. */
function split<T>(apis: FactoryApi[], n: number, request: (api: FactoryApi, i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => request(apis[i % apis.length], i)));
}

/** The instances' database opened in this process for `fn`, closed after. */
async function withDatabase<T>(two: Instances, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openTestStore({ dataDir: two.dataDir });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function get(url: string, path: string, token: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  return { status: response.status, body: await response.json() };
}

test('identical sales sent at once, split across both instances: one 200, the others 409 naming its sale; one sale, commission and ledger row each', async () => {
  const two = await twoInstances();
  const program = await two.make.program();
  await two.make.lead(program);
  const before = await withDatabase(two, counts);
  for (let round = 0; round < 10; round++) {
    const body = { transaction_id: `dup_${round}`, amount_cents: 5000 + round, customer_key: 'cust_1' };
    const answers = await split(two.apis, 20, (api) => api.track('/api/v1/track/sale', body, program.apiKey));
    const created = answers.filter((a) => a.status === 200);
    expect(created, JSON.stringify(answers)).toHaveLength(1);
    const saleId = created[0].body.sale_id;
    expect(answers.filter((a) => a.status !== 200)).toEqual(
      Array(19).fill({
        status: 409,
        body: {
          data: null,
          error: { status: 409, name: 'ConflictError', message: `Transaction dup_${round} was already recorded`, details: { sale_id: saleId }, code: 'duplicate_transaction' },
        },
      }),
    );
  }
  expect(delta(before, await withDatabase(two, counts))).toEqual({ sale_events: 10, commissions: 10, sale_transactions: 10, conversions: 1 });
});

test('one Stripe event delivered 20 times at once, split across both instances: one first delivery, the same outcome and sale in every answer; one event, one sale', async () => {
  const two = await twoInstances();
  const program = await two.make.program();
  const { clickId } = await two.make.lead(program, 'user_42', { email: 'jenny@shop.example' });
  const event = fixture<Record<string, unknown>>('checkout-one-time', { CLICK_ID: clickId, CUSTOMER_KEY: 'user_42', PROGRAM_ID: String(program.id) });
  shiftEventTimes(event, new Date(NOW));
  const payload = JSON.stringify(event, null, 2);
  const timestamp = Date.parse(NOW) / 1000;
  const before = await withDatabase(two, counts);
  const answers = await Promise.all(two.servers.flatMap((server) => Array.from({ length: 10 }, () => postWebhook(server.url, program, payload, { timestamp }))));
  expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
  const first = answers.filter((a) => !a.body.redelivery);
  expect(first, 'exactly one delivery is the first').toHaveLength(1);
  expect(first[0].body).toMatchObject({ outcome: 'recorded', reason: null, sale_id: expect.any(Number) });
  for (const answer of answers) expect({ ...answer.body, redelivery: false }).toEqual(first[0].body);
  expect(delta(before, await withDatabase(two, counts))).toEqual({ webhook_events: 1, sale_events: 1, commissions: 1, sale_transactions: 1, conversions: 1 });
});

test("a subscription's events and redeliveries all at once, split across both instances, 10 programs at once: the sales and outcomes one instance gives in any order", { timeout: 120_000 }, async () => {
  const two = await twoInstances();
  const random = seededRandom(SEED);
  const merchants = [];
  for (let i = 0; i < 10; i++) {
    const program = await two.make.program();
    const { clickId } = await two.make.lead(program, 'user_42', { email: 'jenny@shop.example' });
    await two.make.lead(program, 'user_77', { email: 'sam@example.org' });
    const values = { CLICK_ID: clickId, CUSTOMER_KEY: 'user_42', PROGRAM_ID: String(program.id), EMAIL: 'Sam@Example.org' };
    merchants.push({ program, payloads: SUBSCRIPTION.map(([name]) => JSON.stringify(fixture(name, values), null, 2)) });
  }
  // After the last renewal, so every event is in the past and within the attribution window.
  const now = '2026-04-28T12:05:00.000Z';
  await restartBoth(two, now);
  const timestamp = Date.parse(now) / 1000;
  // Every program's deliveries at once, in one shuffled stream alternating between the instances.
  const deliveries = shuffle(
    merchants.flatMap(({ program, payloads }) => [...payloads, ...payloads.filter(() => random() < 0.5)].map((payload) => ({ program, payload }))),
    random,
  );
  const answers = await Promise.all(deliveries.map(({ program, payload }, i) => postWebhook(two.servers[i % 2].url, program, payload, { timestamp })));
  expect(answers.map((a) => a.status)).toEqual(Array(deliveries.length).fill(200));
  for (const { program, payloads } of merchants) {
    const stored = await withDatabase(two, (store) =>
      store.read((sql) =>
        sql.all<{ event_id: string; outcome: string; reason: string | null; transaction_id: string | null }>(
          'SELECT w.event_id, w.outcome, w.reason, s.transaction_id FROM webhook_events w LEFT JOIN sale_events s ON s.id = w.sale_id WHERE w.program_id = $1',
          [program.id],
        ),
      ),
    );
    const byEvent = new Map(stored.map((e) => [e.event_id, [e.outcome, e.reason, e.transaction_id]]));
    expect({
      program: program.id,
      events: SUBSCRIPTION.map(([name], i) => [name, ...(byEvent.get(JSON.parse(payloads[i]).id) ?? ['not stored'])]),
      webhookEvents: stored.length,
      sales: await withDatabase(two, (store) => salesOf(store, `s.program_id = ${program.id}`)),
    }).toEqual({ program: program.id, events: SUBSCRIPTION, webhookEvents: SUBSCRIPTION.length, sales: SUBSCRIPTION_SALES });
  }
});

test('a key retired through one instance is refused by the other within 1 s, and at once by the one that retired it; never accepted again', async () => {
  const two = await twoInstances();
  const program = await two.make.program();
  await two.make.lead(program);
  const key = await two.apis[0].admin('POST', `/programs/${program.id}/keys`, { test: false });
  // A lead of a known customer changes nothing: each instance reads (and caches) the key.
  const lead = (api: FactoryApi) => api.track('/api/v1/track/lead', { customer_key: 'cust_1', click_id: 'ck_1_aaaaaaaaaaaaaaaa' }, key.apiKey);
  for (const api of two.apis) expect(await lead(api)).toMatchObject({ status: 200, body: { message: 'Customer already tracked' } });

  expect(await two.apis[0].admin('POST', `/programs/${program.id}/keys/${key.id}/retire`)).toEqual({ id: key.id, status: 'retired' });
  const retiredAt = performance.now();
  expect(await lead(two.apis[0])).toMatchObject({ status: 401, body: { error: { code: 'api_key_rotation_required' } } });
  const statuses: number[] = [];
  while (performance.now() - retiredAt < 1500) {
    const answer = await lead(two.apis[1]);
    statuses.push(answer.status);
    if (answer.status === 401) expect(answer.body.error.code).toBe('api_key_rotation_required');
    if (answer.status === 200 && performance.now() - retiredAt > 1000) throw new Error(`the other instance still accepts the retired key ${Math.round(performance.now() - retiredAt)} ms after it was retired`);
  }
  // Accepted for a while (its cache), then refused for good.
  const firstRefusal = statuses.indexOf(401);
  expect(firstRefusal).toBeGreaterThanOrEqual(0);
  expect(statuses.slice(firstRefusal)).toEqual(Array(statuses.length - firstRefusal).fill(401));
  expect(statuses.slice(0, firstRefusal)).toEqual(Array(firstRefusal).fill(200));
});

test('a partner deactivated through one instance: that one refuses its link at once, the other once its cached enrollment expires, and for good', async () => {
  const two = await twoInstances();
  const program = await two.make.program();
  const click = async (api: FactoryApi) => (await api.track('/api/v1/track/click', { ref: program.refCode })).status;
  // Each instance reads (and caches) the enrollment.
  for (const api of two.apis) expect(await click(api)).toBe(200);

  const patched = await fetch(`${two.servers[0].url}/api/admin/partners/${program.partnerId}`, {
    method: 'PATCH', headers: { authorization: `Bearer ${two.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ status: 'inactive' }),
  });
  expect(patched.status).toBe(200);
  expect(await click(two.apis[0])).toBe(404);
  // The other instance follows without a restart (docs/store-engines.md#what-a-process-may-remember), then never records one again.
  const statuses: number[] = [];
  await (async () => {
    while (statuses.at(-1) !== 404) statuses.push(await click(two.apis[1]));
  })();
  for (let i = 0; i < 5; i++) expect(await click(two.apis[1])).toBe(404);
  expect(statuses.slice(0, -1).every((status) => status === 200)).toBe(true);
});

test('one click per visitor and hour across both instances: repeats through either get the first click id until 60 minutes after it', { timeout: 60_000 }, async () => {
  const two = await twoInstances();
  const program = await two.make.program();
  /** Browser clicks of one visitor (127.0.0.1 and a User-Agent), 20 at once, split across both. */
  const visit = (userAgent: string) =>
    split(two.apis, 20, (api) => api.track('/api/v1/track/click', { ref: program.refCode }, undefined, { 'user-agent': userAgent })).then((answers) => {
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
      const ids = new Set(answers.map((a) => a.body.click_id));
      expect(ids.size, JSON.stringify([...ids])).toBe(1);
      return [...ids][0] as string;
    });
  const clicks = async () => (await withDatabase(two, counts)).clicks;
  const first = await visit('visitor-1');
  expect(await visit('visitor-2')).not.toBe(first);
  expect(await clicks()).toBe(2);

  await restartBoth(two, '2026-03-01T13:04:59.999Z'); // 1 ms before the window of the first click ends
  expect(await visit('visitor-1')).toBe(first);
  expect(await clicks()).toBe(2);

  await restartBoth(two, '2026-03-01T13:05:00.000Z');
  expect(await visit('visitor-1')).not.toBe(first);
  expect(await clicks()).toBe(3);
});

test('visitors clicking at once through both instances, 10 rounds of 20 new visitors with 4 clicks each: one stored click and one click id per visitor', async () => {
  const two = await twoInstances();
  const program = await two.make.program();
  for (let round = 0; round < 10; round++) {
    const visitors = Array.from({ length: 20 }, (_, v) => `visitor-${round}-${v}`);
    // Each visitor's clicks alternate between the instances, so both batches hold the same visitors at once.
    const answers = await split(two.apis, visitors.length * 4, (api, i) =>
      api.track('/api/v1/track/click', { ref: program.refCode }, undefined, { 'user-agent': visitors[Math.floor(i / 4)] }),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(answers.length).fill(200));
    const idsOf = visitors.map((_, v) => new Set(answers.slice(v * 4, v * 4 + 4).map((a) => a.body.click_id)));
    expect(idsOf.map((ids) => ids.size), `round ${round}`).toEqual(Array(visitors.length).fill(1));
  }
  expect((await withDatabase(two, counts)).clicks).toBe(200);
});

test('refunds raced across both instances stay exactly-once: 20 identical refunds record one, 30 different ones never refund more than the sale', async () => {
  const two = await twoInstances();
  const program = await two.make.program();
  await two.make.lead(program);
  const { sale_id: saleId } = await two.make.sale(program, { transaction_id: 'big', amount_cents: 1000 });
  const refund = (body: Record<string, unknown>) => (api: FactoryApi) => api.track('/api/v1/track/refund', { transaction_id: 'big', amount_cents: 100, ...body }, program.apiKey);

  const same = await split(two.apis, 20, refund({ refund_id: 're_same' }));
  const recorded = same.filter((a) => a.status === 200);
  expect(recorded, JSON.stringify(same)).toHaveLength(1);
  expect(recorded[0].body).toMatchObject({ sale_id: saleId, refunded_cents: 100, remaining_cents: 900 });
  expect(same.filter((a) => a.status !== 200).map((a) => [a.status, a.body.error.code, a.body.error.details])).toEqual(
    Array(19).fill([409, 'duplicate_refund', { refund_id: recorded[0].body.refund_id }]),
  );

  const different = await split(two.apis, 30, (api, i) => refund({ refund_id: `re_${i}` })(api));
  expect(different.filter((a) => a.status === 200)).toHaveLength(9);
  expect(different.filter((a) => a.status !== 200).map((a) => [a.status, a.body.error.code, a.body.error.details])).toEqual(
    Array(21).fill([422, 'refund_exceeds_sale', { remaining_cents: 0 }]),
  );
  expect(different.filter((a) => a.status === 200).map((a) => a.body.refunded_cents).sort((x, y) => x - y)).toEqual([200, 300, 400, 500, 600, 700, 800, 900, 1000]);

  const stored = await withDatabase(two, (store) =>
    store.read((sql) =>
      sql.all('SELECT (SELECT count(*) FROM refunds) AS refunds, (SELECT sum(amount_cents) FROM refunds) AS refunded, (SELECT status FROM commissions WHERE sale_id = $1) AS commission', [saleId]),
    ),
  );
  expect(stored).toEqual([{ refunds: 10, refunded: 1000n, commission: 'reversed' }]);
});

test('payout creation raced across both instances: one batch pays every approved commission once, every other call finds nothing due', async () => {
  const two = await twoInstances();
  const program = await two.make.program({ holdDays: 0 });
  const customers = ['cust_1'];
  await two.make.lead(program);
  for (let n = 2; n <= 4; n++) {
    const enrollment = await two.make.enroll(program.id, (await two.make.partner()).id);
    await two.make.lead({ ...program, refCode: enrollment.refCode }, `cust_${n}`);
    customers.push(`cust_${n}`);
  }
  for (let n = 0; n < 12; n++) await two.make.sale(program, { transaction_id: `s_${n}`, amount_cents: 1000 + n, customer_key: customers[n % 4] });

  const answers = await split(two.apis, 20, (api) => api.track(`/api/programs/${program.id}/payouts`, undefined, two.adminToken));
  expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
  const batches = answers.filter((a) => a.body.batchId !== null);
  expect(batches, JSON.stringify(answers)).toHaveLength(1);
  expect(answers.filter((a) => a.body.batchId === null).map((a) => a.body)).toEqual(Array(19).fill({ batchId: null, payouts: [] }));
  const { payouts } = batches[0].body as { payouts: Array<{ id: number; commissionIds: number[] }> };
  expect(payouts).toHaveLength(4);
  const paid = payouts.flatMap((p) => p.commissionIds).sort((x, y) => x - y);
  expect(new Set(paid).size).toBe(12);

  const commissions = await withDatabase(two, (store) => store.read((sql) => sql.all('SELECT id, status, payout_id FROM commissions ORDER BY id')));
  const payoutOf = new Map(payouts.flatMap((p) => p.commissionIds.map((id) => [id, p.id] as const)));
  expect(commissions).toEqual(paid.map((id) => ({ id, status: 'processing', payout_id: payoutOf.get(id) })));
});

test('the reports read the same from both instances', async () => {
  const two = await twoInstances();
  const program = await two.make.program();
  await two.make.lead(program, 'cust_1');
  await two.make.lead(program, 'cust_2');
  await split(two.apis, 6, (api, i) => api.track('/api/v1/track/sale', { transaction_id: `r_${i}`, amount_cents: 1000 * (i + 1), customer_key: `cust_${(i % 2) + 1}` }, program.apiKey));
  await two.apis[1].track('/api/v1/track/refund', { transaction_id: 'r_5', refund_id: 're_1', amount_cents: 2500 }, program.apiKey);
  await two.make.click(program);

  for (const path of [`/api/tracking/performance/${program.id}?period=7d`, `/api/tracking/performance/${program.id}/partners?period=7d`]) {
    const [a, b] = await Promise.all(two.servers.map((server) => get(server.url, path, two.adminToken)));
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(b).toEqual(a);
  }
  const report = await get(two.servers[1].url, `/api/tracking/performance/${program.id}?period=7d`, two.adminToken);
  // Sales of 10 + 20 + … + 60 dollars less a 25-dollar refund; 20 % commission on what is left; nothing the week before.
  const up = { trend: 100, trendDirection: 'up' };
  expect(report.body.metrics).toEqual({
    totalClicks: 3, totalLeads: 0, totalConversions: 2, totalRevenue: 185, conversionRate: 66.67, averageOrderValue: 92.5, totalPartners: 1, totalSales: 6,
    totalPartnersCommission: 37, totalRefunded: 25, clicksTrend: up, leadsTrend: { trend: 0, trendDirection: 'stable' }, conversionsTrend: up, revenueTrend: up,
    partnersTrend: up, salesTrend: up, commissionTrend: up, refundedTrend: up,
  });
});

test('kill -9 of one instance under load, 3 rounds, each instance in turn: no acknowledged sale lost or doubled, and the other keeps serving', { timeout: 150_000 }, async () => {
  const CLIENTS = 8; // per instance
  const two = await twoInstances();
  const program = await two.make.program();
  await two.make.lead(program);
  const random = seededRandom(SEED);
  /** Every sale stored, by transaction id: its id and amount (acknowledged, or resolved after a kill). */
  const expected = new Map<string, { id: number; amount: number }>();
  const send = (api: FactoryApi, txn: string, amount: number) => api.track('/api/v1/track/sale', { transaction_id: txn, amount_cents: amount, customer_key: 'cust_1' }, program.apiKey);

  /** Sales with new transaction ids from CLIENTS clients of one server, until it dies or `stop()`. */
  const load = (api: FactoryApi, name: string) => {
    const acks: Array<{ txn: string; amount: number; id: number }> = [];
    const inFlight: Array<{ txn: string; amount: number }> = [];
    const refused: string[] = [];
    let stopped = false;
    const clients = Array.from({ length: CLIENTS }, async (_, client) => {
      for (let n = 0; !stopped; n++) {
        const txn = `${name}_c${client}_${n}`;
        const amount = 1000 + ((client * 7919 + n * 13) % 90_000);
        let answer: { status: number; body: any };
        try {
          answer = await send(api, txn, amount);
        } catch {
          inFlight.push({ txn, amount }); // no answer: the server died with this sale in flight
          return;
        }
        if (answer.status !== 200) return void refused.push(`${txn}: ${answer.status} ${JSON.stringify(answer.body)}`);
        acks.push({ txn, amount, id: answer.body.sale_id });
      }
    });
    return { acks, inFlight, refused, stop: () => (stopped = true), done: Promise.all(clients) };
  };

  for (let round = 0; round < 3; round++) {
    const [victim, survivor] = round % 2 === 0 ? [0, 1] : [1, 0];
    const loads = two.apis.map((api, i) => load(api, `r${round}_i${i}`));
    await until(() => loads.every((l) => l.acks.length > 0));
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.floor(random() * 400)));
    expect(await two.servers[victim].stop('SIGKILL')).toBeNull();
    await loads[victim].done;
    const atKill = loads[survivor].acks.length;
    await until(() => loads[survivor].acks.length >= atKill + 100);
    loads[survivor].stop();
    await loads[survivor].done;
    expect([loads[0].refused, loads[1].refused, loads[survivor].inFlight], 'every answer was 200').toEqual([[], [], []]);
    for (const ack of [...loads[0].acks, ...loads[1].acks]) expected.set(ack.txn, { id: ack.id, amount: ack.amount });

    // Every sale the dead instance acknowledged is stored: sent again to the survivor, 409 with its id.
    const resends = await Promise.all(loads[victim].acks.map((ack) => send(two.apis[survivor], ack.txn, ack.amount)));
    resends.forEach((resend, i) => {
      expect(resend, loads[victim].acks[i].txn).toMatchObject({ status: 409, body: { error: { code: 'duplicate_transaction', details: { sale_id: loads[victim].acks[i].id } } } });
    });
    // A sale without an answer may or may not have committed: retrying it is safe either way.
    for (const { txn, amount } of loads[victim].inFlight) {
      const retry = await send(two.apis[survivor], txn, amount);
      expect([200, 409], `${txn}: ${JSON.stringify(retry.body)}`).toContain(retry.status);
      expected.set(txn, { id: retry.status === 200 ? retry.body.sale_id : retry.body.error.details.sale_id, amount });
    }
    two.servers[victim] = await startServe(two.dataDir, SERVE_ARGS, { PARTNERKIT_NOW: NOW });
    two.apis[victim] = httpFactoryApi(two.servers[victim].url, two.adminToken);
  }

  // The database itself: exactly the expected sales, each with its 20 % commission and its ledger row.
  const [rows, stored] = await withDatabase(two, async (store) => [
    await store.read((sql) =>
      sql.all<{ txn: string; id: number; amount: number; commission: number; ledger: number }>(
        `SELECT s.transaction_id AS txn, s.id, s.amount_cents AS amount, c.amount_cents AS commission, t.sale_id AS ledger
         FROM sale_events s LEFT JOIN commissions c ON c.sale_id = s.id LEFT JOIN sale_transactions t ON t.program_id = s.program_id AND t.transaction_id = s.transaction_id`,
      ),
    ),
    await counts(store),
  ] as const);
  expect(new Map(rows.map((r) => [r.txn, r]))).toEqual(
    new Map([...expected].map(([txn, { id, amount }]) => [txn, { txn, id, amount, commission: Math.round(amount * 0.2), ledger: id }])),
  );
  expect([stored.sale_events, stored.commissions, stored.sale_transactions]).toEqual([expected.size, expected.size, expected.size]);
});
