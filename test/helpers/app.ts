import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect, onTestFinished, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Clock } from '../../src/clock.js';
import { sha256 } from '../../src/domain/secrets.js';
import { DEFAULT_EDGE, type AppDeps } from '../../src/http/deps.js';
import type { Store } from '../../src/store/db.js';
import { openStore } from '../../src/store/open.js';
import { checkedRollups, openTestStore } from './engine.js';
import { factories, type Factories, type Fields, type ProgramFixture } from './factories.js';

export type { ProgramFixture } from './factories.js';

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

/**
 * Date frozen at T0 until the test finishes, timers left real: rate limits count in real time
 * (docs/api.md#rate-limits), so their windows and Retry-After become exact; vi.setSystemTime moves it.
 */
export function freezeDate(): void {
  vi.useFakeTimers({ toFake: ['Date'], now: new Date(T0) });
  onTestFinished(() => void vi.useRealTimers());
}

/** A 429 rate_limited in the typed envelope. */
export const rateLimitedBody = (reason: string, seconds: number) => ({
  error: { code: 'rate_limited', message: `${reason}; retry in ${seconds} s`, retry_after_seconds: seconds },
});

/** The app, its store and clock, and the factories (programs, partners, clicks, leads, sales) over its API. */
export type TestApp = Factories & {
  app: FastifyInstance;
  deps: AppDeps;
  clock: TestClock;
  store: Store;
  admin<T = any>(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown): Promise<T>;
  post(url: string, payload: unknown, apiKey?: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  count(table: string, where?: string): Promise<number>;
};

export type TestAppOptions = {
  now?: string;
  rateLimit?: AppDeps['rateLimit'];
  /** Unique clicks as served (60 minutes), per-address limits out of the way unless a test sets them. */
  clicks?: Partial<AppDeps['clicks']>;
  authFailureLimit?: AppDeps['authFailureLimit'];
  trustProxy?: AppDeps['trustProxy'];
  /** A database file instead of a fresh in-memory one (a restart opens the same path again). */
  path?: string;
  /** A DuckDB store whatever the test engine: a twin to compare the PostgreSQL store's answers with. */
  duckdb?: boolean;
  /** Another app's store, which that app closes: a second app over one DuckDB file, which one process holds. */
  store?: Store;
  /** Sees the SQL text of every statement the store's writer runs (appends as `APPEND <table>`). */
  observeWrites?: (sql: string) => void;
  /** The request log, as `serve` writes it (none by default). */
  log?: AppDeps['log'];
  /** Connection timeouts (serve's defaults by default). */
  connections?: AppDeps['connections'];
  /** The built pages' directory (none by default, as the CLI's in-process app). */
  pages?: string;
  /** Export limits, their files' directory and a stalled reader's time (serve's defaults, in the system's temporary directory, by default). */
  exports?: AppDeps['exports'];
  /** Where Stripe reconciliation sends its requests (a local fake of Stripe's API). */
  stripeApi?: AppDeps['stripeApi'];
};

/** A fresh store of the test engine (or DuckDB), closed when the test finishes. */
async function testStore(options: TestAppOptions): Promise<Store> {
  const store = options.duckdb
    ? checkedRollups(await openStore({ duckdb: options.path ?? ':memory:' }, { observeWrites: options.observeWrites }))
    : await openTestStore({ path: options.path, observeWrites: options.observeWrites });
  // Finished hooks run last-registered first: the app closes before its store.
  onTestFinished(() => store.close());
  return store;
}

/** An app over a fresh store of the test engine (in-memory DuckDB, or a PostgreSQL schema) with a movable clock, closed when the test that built it finishes. */
/**
 * A report's GET, answered twice: once with the rows still pending, read from the events, then
 * after the roll-up, read from the rollups; both answers must be the same (docs/rollups.md#pending-rows).
 * Answers the first.
 */
export async function getReport(t: TestApp, url: string, token = ADMIN_TOKEN): Promise<LightMyRequestResponse> {
  const request = () => t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
  const pending = await request();
  await t.store.rollUp();
  const rolledUp = await request();
  expect({ status: rolledUp.statusCode, body: rolledUp.body }).toEqual({ status: pending.statusCode, body: pending.body });
  return pending;
}

export async function buildTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const clock = testClock(options.now ?? T0);
  const store = options.store ?? (await testStore(options));
  const unlimited = { max: 100_000, windowSeconds: 1 };
  const deps: AppDeps = {
    store,
    clock,
    adminTokenHash: sha256(ADMIN_TOKEN),
    rateLimit: options.rateLimit ?? unlimited,
    clicks: { dedupMinutes: DEFAULT_EDGE.clicks.dedupMinutes, rateLimit: unlimited, ...options.clicks },
    authFailureLimit: options.authFailureLimit ?? unlimited,
    trustProxy: options.trustProxy ?? false,
    log: options.log,
    connections: options.connections,
    pages: options.pages,
    exports: options.exports,
    stripeApi: options.stripeApi,
  };
  const app = await buildApp(deps);
  onTestFinished(() => app.close());

  const admin = async (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) => {
    const response = await app.inject({ method, url: `/api/admin${url}`, payload: payload as object, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    if (response.statusCode !== 200) throw new Error(`${method} ${url} → ${response.statusCode} ${response.body}`);
    return response.json();
  };
  const post = (url: string, payload: unknown, apiKey?: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url, payload: payload as object, headers: { ...headers, ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) } });
  const track = async (url: string, payload: unknown, apiKey?: string, headers?: Record<string, string>) => {
    const response = await post(url, payload, apiKey, headers);
    return { status: response.statusCode, body: response.json() };
  };

  return {
    ...factories({ admin, track }),
    app,
    deps,
    clock,
    store,
    admin,
    post,
    async count(table, where = 'true') {
      const row = await store.read((sql) => sql.one<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${where}`));
      return row!.n;
    },
  };
}

/** An app with a program and its lead cust_1 (buyer@example.com), inside the attribution window. */
export async function withCustomer(programOverrides: Fields = {}, options: TestAppOptions = {}) {
  const t = await buildTestApp(options);
  const program: ProgramFixture = await t.program(programOverrides);
  const lead = await t.lead(program, 'cust_1', { email: 'buyer@example.com' });
  return { t, program, ...lead };
}
