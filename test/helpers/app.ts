import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { onTestFinished } from 'vitest';
import { buildApp, type AppDeps } from '../../src/app.js';
import type { Clock } from '../../src/clock.js';
import { sha256 } from '../../src/domain/secrets.js';
import { Store } from '../../src/store/db.js';

/** A clock tests can move: starts at `iso`, moved with set()/advance(). */
export type TestClock = Clock & { set(iso: string): void; advanceDays(days: number): void };

export function testClock(iso: string): TestClock {
  let now = Date.parse(iso);
  return {
    now: () => new Date(now),
    set: (next) => {
      now = Date.parse(next);
    },
    advanceDays: (days) => {
      now += days * 86_400_000;
    },
  };
}

export const ADMIN_TOKEN = 'pka_test_admin_token';
export const T0 = '2026-03-01T12:00:00.000Z';

export type TestApp = {
  app: FastifyInstance;
  deps: AppDeps;
  clock: TestClock;
  store: Store;
  admin<T = any>(method: 'GET' | 'POST', url: string, payload?: unknown): Promise<T>;
  /** Program + partner + enrollment; returns keys and the referral code. */
  program(options?: Record<string, unknown>): Promise<ProgramFixture>;
  /** A click and a lead for a fresh customer of the program. */
  lead(program: ProgramFixture, customerKey: string, email?: string): Promise<{ clickId: string; customerId: number }>;
  post(url: string, payload: unknown, apiKey?: string): Promise<LightMyRequestResponse>;
  count(table: string, where?: string): Promise<number>;
};

export type ProgramFixture = {
  id: number;
  apiKey: string;
  testApiKey: string;
  webhookSecret: string;
  partnerId: number;
  partnerProgramId: number;
  refCode: string;
};

let partnerSeq = 0;

/** An app over a fresh in-memory DuckDB with a movable clock, closed when the test that built it finishes. */
export async function buildTestApp(options: { now?: string; rateLimit?: AppDeps['rateLimit'] } = {}): Promise<TestApp> {
  const clock = testClock(options.now ?? T0);
  const store = await Store.open(':memory:');
  // Finished hooks run last-registered first: the app closes before its store.
  onTestFinished(() => store.close());
  const deps: AppDeps = { store, clock, adminTokenHash: sha256(ADMIN_TOKEN), rateLimit: options.rateLimit ?? { max: 100_000, windowSeconds: 1 } };
  const app = await buildApp(deps);
  onTestFinished(() => app.close());

  const admin = async (method: 'GET' | 'POST', url: string, payload?: unknown) => {
    const response = await app.inject({ method, url: `/api/admin${url}`, payload: payload as object, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    if (response.statusCode !== 200) throw new Error(`${method} ${url} → ${response.statusCode} ${response.body}`);
    return response.json();
  };
  const post = (url: string, payload: unknown, apiKey?: string) =>
    app.inject({ method: 'POST', url, payload: payload as object, headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} });

  const t: TestApp = {
    app,
    deps,
    clock,
    store,
    admin,
    post,
    async program(programOptions = {}) {
      const program = await admin('POST', '/programs', { name: 'Test program', ...programOptions });
      const partner = await admin('POST', '/partners', { name: 'Partner', email: `partner${++partnerSeq}@example.com` });
      const enrollment = await admin('POST', `/programs/${program.id}/partners`, { partnerId: partner.id });
      return {
        id: program.id,
        apiKey: program.apiKey,
        testApiKey: program.testApiKey,
        webhookSecret: program.webhookSecret,
        partnerId: partner.id,
        partnerProgramId: enrollment.id,
        refCode: enrollment.refCode,
      };
    },
    async lead(program, customerKey, email) {
      const click = await post('/api/v1/track/click', { ref: program.refCode });
      const clickId = click.json().click_id as string;
      const lead = await post('/api/v1/track/lead', { customer_key: customerKey, click_id: clickId, email }, program.apiKey);
      if (lead.statusCode !== 200) throw new Error(`lead → ${lead.statusCode} ${lead.body}`);
      return { clickId, customerId: lead.json().customer_id };
    },
    async count(table, where = 'true') {
      const row = await store.read((sql) => sql.one<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`));
      return row!.n;
    },
  };
  return t;
}
