import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BIN, cliEnv, startServe, tempDataDir, until, type ServeProcess } from '../helpers/cli.js';
import { openTestStore } from '../helpers/engine.js';
import { factories, httpFactoryApi } from '../helpers/factories.js';
import { seededRandom } from './support.js';

/**
 * Process faults on a real `partnerkit serve` (dist/, so `npm run build` first):
 * kill -9 under load, and a second server on a held data dir.
 */
const ROUNDS = 5;
const CLIENTS = 16;
const SEED = 7_2026;
const SERVE_ARGS = ['--rate-limit', '1000000'];

type Ack = { txn: string; amount: number; saleId: number; commissionId: number };

async function call(url: string, path: string, token: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
  });
  return { status: response.status, body: await response.json() };
}

/** Program, partner, enrollment, click and lead cust_1 through the running server's HTTP API; the live key. */
async function provision(url: string, adminToken: string): Promise<string> {
  const make = factories(httpFactoryApi(url, adminToken));
  const program = await make.program({ name: 'Crash test' });
  expect((await make.lead(program)).customerId).toBe(1);
  return program.apiKey;
}

/** Sales with unique transaction ids from concurrent clients until the server goes away. */
function load(url: string, apiKey: string, round: number) {
  const acks: Ack[] = [];
  const inFlight: Array<{ txn: string; amount: number }> = [];
  const refused: string[] = [];
  let firstAck: () => void = () => {};
  const acknowledged = new Promise<void>((resolve) => (firstAck = resolve));
  const clients = Array.from({ length: CLIENTS }, async (_, client) => {
    for (let n = 0; ; n++) {
      const txn = `r${round}_c${client}_${n}`;
      const amount = 1000 + ((round * 7919 + client * 104_729 + n * 13) % 90_000);
      let response: { status: number; body: any };
      try {
        response = await call(url, '/api/v1/track/sale', apiKey, { transaction_id: txn, amount_cents: amount, customer_key: 'cust_1' });
      } catch {
        inFlight.push({ txn, amount }); // no answer: the server died with this request in flight
        return;
      }
      if (response.status !== 200) {
        refused.push(`${txn}: ${response.status} ${JSON.stringify(response.body)}`);
        return;
      }
      acks.push({ txn, amount, saleId: response.body.sale_id, commissionId: response.body.commission_id });
      firstAck();
    }
  });
  return { acks, inFlight, refused, acknowledged, done: Promise.all(clients) };
}

describe('kill -9 under load', () => {
  test(`${ROUNDS} rounds of ${CLIENTS} concurrent clients, SIGKILL at a seeded random moment, restart on the same file: every acknowledged sale exactly once`, { timeout: 150_000 }, async () => {
    const dataDir = tempDataDir();
    const random = seededRandom(SEED);
    let server: ServeProcess = await startServe(dataDir, SERVE_ARGS);
    const apiKey = await provision(server.url, readFileSync(join(dataDir, 'admin-token'), 'utf8').trim());
    const allAcks: Ack[] = [];
    /** Sales in flight at a kill, resolved by resending them after the restart: txn → sale id. */
    const resolved = new Map<string, { saleId: number; amount: number }>();
    const rounds: Array<{ acked: number; inFlight: number; committedUnanswered: number }> = [];

    for (let round = 0; round < ROUNDS; round++) {
      const run = load(server.url, apiKey, round);
      await run.acknowledged;
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.floor(random() * 400)));
      expect(await server.stop('SIGKILL')).toBeNull(); // killed by the signal, no exit code
      await run.done;
      expect(run.refused, 'every answer before the kill was 200').toEqual([]);
      expect(run.acks.length).toBeGreaterThan(0);
      allAcks.push(...run.acks);

      server = await startServe(dataDir, SERVE_ARGS);
      // Every acknowledged sale survived: resending it answers 409 with the id it was given.
      const resends = await Promise.all(
        run.acks.map((ack) => call(server.url, '/api/v1/track/sale', apiKey, { transaction_id: ack.txn, amount_cents: ack.amount, customer_key: 'cust_1' })),
      );
      resends.forEach((resend, i) => {
        expect(resend, run.acks[i].txn).toMatchObject({ status: 409, body: { error: { code: 'duplicate_transaction', details: { sale_id: run.acks[i].saleId } } } });
      });
      // A sale without an answer may or may not have committed; retrying it is safe either way.
      rounds.push({ acked: run.acks.length, inFlight: run.inFlight.length, committedUnanswered: 0 });
      for (const { txn, amount } of run.inFlight) {
        const retry = await call(server.url, '/api/v1/track/sale', apiKey, { transaction_id: txn, amount_cents: amount, customer_key: 'cust_1' });
        expect([200, 409], `${txn}: ${JSON.stringify(retry.body)}`).toContain(retry.status);
        const saleId = retry.status === 200 ? retry.body.sale_id : retry.body.error.details.sale_id;
        expect(saleId).toEqual(expect.any(Number));
        resolved.set(txn, { saleId, amount });
        if (retry.status === 409) rounds[round].committedUnanswered++;
      }
    }
    expect(await server.stop('SIGTERM')).toBe(0);
    if (process.env.PARTNERKIT_FAULTS_VERBOSE) console.log('kill -9 rounds', JSON.stringify(rounds));

    // The file itself, opened directly: nothing duplicated, nothing half-written, ledger in agreement.
    const store = await openTestStore({ dataDir });
    try {
      const [sales, commissions, ledger] = await store.read(async (sql) => [
        await sql.all<{ id: number; transaction_id: string; amount_cents: number }>('SELECT id, transaction_id, amount_cents FROM sale_events'),
        await sql.all<{ id: number; sale_id: number; amount_cents: number }>('SELECT id, sale_id, amount_cents FROM commissions'),
        await sql.all<{ transaction_id: string; sale_id: number | null; mode: string }>('SELECT transaction_id, sale_id, mode FROM sale_transactions'),
      ] as const);

      const saleByTxn = new Map(sales.map((s) => [s.transaction_id, s]));
      expect(saleByTxn.size, 'one sale per transaction id').toBe(sales.length);
      expect(new Set(sales.map((s) => s.id)).size, 'unique sale ids').toBe(sales.length);
      expect(new Set(commissions.map((c) => c.id)).size, 'unique commission ids').toBe(commissions.length);

      for (const ack of allAcks) {
        expect(saleByTxn.get(ack.txn), ack.txn).toEqual({ id: ack.saleId, transaction_id: ack.txn, amount_cents: ack.amount });
      }
      // No phantom sales: each stored sale was acknowledged, or was in flight at a kill and resolved to it.
      const expected = new Map<string, number>([...allAcks.map((a) => [a.txn, a.saleId] as const), ...[...resolved].map(([txn, r]) => [txn, r.saleId] as const)]);
      expect(new Map(sales.map((s) => [s.transaction_id, s.id]))).toEqual(expected);

      // Every sale has exactly one commission (20 %, rounded half up) and every commission its sale.
      const saleById = new Map(sales.map((s) => [s.id, s]));
      expect(commissions.every((c) => saleById.has(c.sale_id)), 'commission without its sale').toBe(true);
      expect(new Set(commissions.map((c) => c.sale_id)).size).toBe(commissions.length);
      expect(commissions.length, 'sale without its commission').toBe(sales.length);
      for (const c of commissions) expect(c.amount_cents).toBe(Math.round(saleById.get(c.sale_id)!.amount_cents * 0.2));
      for (const ack of allAcks) expect(commissions.find((c) => c.id === ack.commissionId)?.sale_id, ack.txn).toBe(ack.saleId);

      // The idempotency ledger agrees with sale_events, row for row.
      expect(ledger.every((l) => l.mode === 'live')).toBe(true);
      expect(new Map(ledger.map((l) => [l.transaction_id, l.sale_id]))).toEqual(expected);
      expect(ledger.length).toBe(sales.length);
    } finally {
      await store.close();
    }
    expect(allAcks.length).toBeGreaterThan(ROUNDS);
  });
});

describe('kill -9 during payout creation', () => {
  const PARTNERS = 4;
  type Created = { batchId: number | null; payouts: Array<{ id: number; amountCents: number; commissionIds: number[] }> };

  async function createPayouts(url: string, adminToken: string, programId: number): Promise<Created> {
    const response = await fetch(`${url}/api/programs/${programId}/payouts`, { method: 'POST', headers: { authorization: `Bearer ${adminToken}` } });
    if (response.status !== 200) throw new Error(`payout create → ${response.status} ${await response.text()}`);
    return (await response.json()) as Created;
  }

  test(`${ROUNDS} rounds of sales (no hold: approved at once) and concurrent payout creates, SIGKILL at a seeded random moment: no commission in two payouts, none lost, every answered payout intact`, { timeout: 150_000 }, async () => {
    const dataDir = tempDataDir();
    const random = seededRandom(SEED + 1);
    const adminToken = () => readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    let server: ServeProcess = await startServe(dataDir, SERVE_ARGS);
    const make = factories(httpFactoryApi(server.url, adminToken()));
    const program = await make.program({ name: 'Payout crash test', holdDays: 0 });
    const customers = ['cust_1'];
    await make.lead(program);
    for (let n = 2; n <= PARTNERS; n++) {
      const enrollment = await make.enroll(program.id, (await make.partner()).id);
      await make.lead({ ...program, refCode: enrollment.refCode }, `cust_${n}`);
      customers.push(`cust_${n}`);
    }
    const answered: Created[] = [];

    for (let round = 0; round < ROUNDS; round++) {
      let stopped = false;
      let firstPayout: () => void = () => {};
      const paying = new Promise<void>((resolve) => (firstPayout = resolve));
      const sellers = Array.from({ length: 8 }, async (_, client) => {
        for (let n = 0; !stopped; n++) {
          const body = { transaction_id: `p${round}_c${client}_${n}`, amount_cents: 1000 + n, customer_key: customers[(client + n) % PARTNERS] };
          try {
            await call(server.url, '/api/v1/track/sale', program.apiKey, body);
          } catch {
            return; // the server is gone
          }
        }
      });
      const payers = Array.from({ length: 2 }, async () => {
        while (!stopped) {
          try {
            const created = await createPayouts(server.url, adminToken(), program.id);
            if (created.batchId !== null) {
              answered.push(created);
              firstPayout();
            }
          } catch {
            return;
          }
        }
      });
      await paying;
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 300)));
      expect(await server.stop('SIGKILL')).toBeNull();
      stopped = true;
      await Promise.all([...sellers, ...payers]);

      // The file itself: every commission in no payout, or processing in exactly the one that took it.
      const store = await openTestStore({ dataDir });
      try {
        const [commissions, payouts, taken] = await store.read(async (sql) => [
          await sql.all<{ id: number; sale_id: number; amount_cents: number; status: string; payout_id: number | null }>(
            'SELECT id, sale_id, amount_cents, status, payout_id FROM commissions ORDER BY id',
          ),
          await sql.all<{ id: number; amount_cents: bigint; status: string }>('SELECT id, amount_cents, status FROM payouts ORDER BY id'),
          await sql.all<{ payout_id: number; commission_id: number }>(
            'SELECT id AS payout_id, unnest(commission_ids) AS commission_id FROM payouts ORDER BY commission_id',
          ),
        ] as const);
        const sales = await store.read((sql) => sql.one<{ n: number }>('SELECT count(*) AS n FROM sale_events'));
        expect(commissions.length, 'one commission per sale, none lost').toBe(sales!.n);
        expect(new Set(taken.map((t) => t.commission_id)).size, 'no commission in two payouts').toBe(taken.length);
        const payoutOf = new Map(taken.map((t) => [t.commission_id, t.payout_id]));
        for (const c of commissions) {
          if (c.status === 'processing') expect(c.payout_id, `commission ${c.id}`).toBe(payoutOf.get(c.id));
          // Stored pending, read as approved: the hold is 0 days under automatic approval.
          else expect([c.status, c.payout_id, payoutOf.has(c.id)], `commission ${c.id}`).toEqual(['pending', null, false]);
        }
        const amounts = new Map<number, bigint>();
        for (const c of commissions) if (c.payout_id !== null) amounts.set(c.payout_id, (amounts.get(c.payout_id) ?? 0n) + BigInt(c.amount_cents));
        expect(payouts.every((p) => p.status === 'processing')).toBe(true);
        expect(new Map(payouts.map((p) => [p.id, p.amount_cents])), 'each payout is the sum of its commissions').toEqual(amounts);
        for (const created of answered) {
          for (const p of created.payouts) {
            expect(taken.filter((t) => t.payout_id === p.id).map((t) => t.commission_id), `payout ${p.id}`).toEqual(p.commissionIds);
            expect(amounts.get(p.id), `payout ${p.id}`).toBe(BigInt(p.amountCents));
          }
        }
      } finally {
        await store.close();
      }
      server = await startServe(dataDir, SERVE_ARGS);
    }
    // serve handles SIGTERM once it has printed its startup hint, a moment after the discovery file.
    await until(() => server.stderr().includes('program(s) on this data dir'));
    expect(await server.stop('SIGTERM')).toBe(0);
    expect(answered.length).toBeGreaterThanOrEqual(ROUNDS);
  });
});

describe('kill -9 during refunds', () => {
  const SALE_CENTS = 1_000_000;

  /** Partial refunds of 1 to 97 cents from concurrent clients, each client refunding its own sale, until the server goes away. */
  function refundLoad(url: string, apiKey: string, round: number) {
    const acks: Array<{ refundId: string; sale: number; cents: number; id: number }> = [];
    const inFlight: Array<{ refundId: string; sale: number; cents: number }> = [];
    const refused: string[] = [];
    let firstAck: () => void = () => {};
    const acknowledged = new Promise<void>((resolve) => (firstAck = resolve));
    const clients = Array.from({ length: CLIENTS }, async (_, sale) => {
      for (let n = 0; ; n++) {
        const refund = { refundId: `re${round}_c${sale}_${n}`, sale, cents: 1 + ((round * 31 + sale * 7 + n) % 97) };
        let response: { status: number; body: any };
        try {
          response = await call(url, '/api/v1/track/refund', apiKey, { transaction_id: `s_${sale}`, refund_id: refund.refundId, amount_cents: refund.cents });
        } catch {
          inFlight.push(refund);
          return;
        }
        if (response.status !== 200) {
          refused.push(`${refund.refundId}: ${response.status} ${JSON.stringify(response.body)}`);
          return;
        }
        acks.push({ ...refund, id: response.body.refund_id });
        firstAck();
      }
    });
    return { acks, inFlight, refused, acknowledged, done: Promise.all(clients) };
  }

  test(`3 rounds of ${CLIENTS} clients refunding, SIGKILL at a seeded random moment: every acknowledged refund exactly once, each commission computed on what is left`, { timeout: 150_000 }, async () => {
    const dataDir = tempDataDir();
    const random = seededRandom(SEED + 1);
    let server: ServeProcess = await startServe(dataDir, SERVE_ARGS);
    const apiKey = await provision(server.url, readFileSync(join(dataDir, 'admin-token'), 'utf8').trim());
    for (let sale = 0; sale < CLIENTS; sale++) {
      expect((await call(server.url, '/api/v1/track/sale', apiKey, { transaction_id: `s_${sale}`, amount_cents: SALE_CENTS, customer_key: 'cust_1' })).status).toBe(200);
    }
    /** Every refund that was answered, or resolved after a kill, by refund id: its stored id and amount. */
    const expected = new Map<string, { id: number; sale: number; cents: number }>();

    for (let round = 0; round < 3; round++) {
      const run = refundLoad(server.url, apiKey, round);
      await run.acknowledged;
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.floor(random() * 400)));
      expect(await server.stop('SIGKILL')).toBeNull();
      await run.done;
      expect(run.refused, 'every answer before the kill was 200').toEqual([]);
      server = await startServe(dataDir, SERVE_ARGS);
      for (const ack of run.acks) {
        const resend = await call(server.url, '/api/v1/track/refund', apiKey, { transaction_id: `s_${ack.sale}`, refund_id: ack.refundId, amount_cents: ack.cents });
        expect(resend, ack.refundId).toMatchObject({ status: 409, body: { error: { code: 'duplicate_refund', details: { refund_id: ack.id } } } });
        expected.set(ack.refundId, { id: ack.id, sale: ack.sale, cents: ack.cents });
      }
      // A refund without an answer may or may not have committed; sending it again is safe either way.
      for (const refund of run.inFlight) {
        const retry = await call(server.url, '/api/v1/track/refund', apiKey, { transaction_id: `s_${refund.sale}`, refund_id: refund.refundId, amount_cents: refund.cents });
        expect([200, 409], JSON.stringify(retry.body)).toContain(retry.status);
        expected.set(refund.refundId, { id: retry.status === 200 ? retry.body.refund_id : retry.body.error.details.refund_id, sale: refund.sale, cents: refund.cents });
      }
    }
    expect(await server.stop('SIGTERM')).toBe(0);

    const store = await openTestStore({ dataDir });
    try {
      const [refunds, commissions] = await store.read(async (sql) => [
        await sql.all<{ id: number; refund_id: string; sale_id: number; amount_cents: number }>('SELECT id, refund_id, sale_id, amount_cents FROM refunds'),
        await sql.all<{ sale_id: number; amount_cents: number; status: string }>('SELECT sale_id, amount_cents, status FROM commissions ORDER BY sale_id'),
      ] as const);
      expect(new Set(refunds.map((r) => r.id)).size, 'unique refund ids').toBe(refunds.length);
      // Exactly the acknowledged and resolved refunds, each once, with its sale and amount (sale ids follow s_0, s_1, …).
      expect(new Map(refunds.map((r) => [r.refund_id, { id: r.id, sale: r.sale_id - 1, cents: r.amount_cents }]))).toEqual(expected);
      expect(refunds.length).toBe(expected.size);
      // The commission changed with each refund, in its transaction: 20 % of what is left, rounded half up.
      const refunded = new Map<number, number>();
      for (const r of refunds) refunded.set(r.sale_id, (refunded.get(r.sale_id) ?? 0) + r.amount_cents);
      expect(commissions).toEqual(
        Array.from({ length: CLIENTS }, (_, i) => ({ sale_id: i + 1, amount_cents: Math.round((SALE_CENTS - (refunded.get(i + 1) ?? 0)) * 0.2), status: 'pending' })),
      );
    } finally {
      await store.close();
    }
    expect(expected.size).toBeGreaterThan(3);
  });
});

describe('a second serve on a held data dir', () => {
  test('exits non-zero at once with a message naming the running server URL; the first server keeps serving', { timeout: 60_000 }, async () => {
    const dataDir = tempDataDir();
    const duckdb = { PARTNERKIT_DATABASE_URL: '' }; // a DuckDB file takes one process; PostgreSQL many (test/multi)
    const server = await startServe(dataDir, [], duckdb);
    const started = Date.now();
    const second = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env: cliEnv(dataDir, duckdb), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    second.stdout.on('data', (chunk) => (output += chunk));
    second.stderr.on('data', (chunk) => (output += chunk));
    // Generous bound: "at once" means it neither waits for the lock nor starts listening.
    const bound = setTimeout(() => second.kill('SIGKILL'), 15_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done) => second.once('exit', (c, s) => done([c, s])));
    clearTimeout(bound);
    const elapsed = Date.now() - started;

    expect(signal, `still running after ${elapsed} ms: ${output}`).toBeNull();
    expect(elapsed).toBeLessThan(15_000);
    expect(code).not.toBe(0);
    expect(output).toContain(server.url);
    // The running server and its discovery file are untouched.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(JSON.parse(readFileSync(join(dataDir, 'server.json'), 'utf8')).pid).toBe(server.child.pid);
  });
});
