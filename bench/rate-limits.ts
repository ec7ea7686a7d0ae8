import { createRequire } from 'node:module';
import { SharedCounters } from '../src/http/shared-rate-limits.js';
import { PostgresStore } from '../src/store/postgres-store.js';
import { postgresSchema } from './lib.js';

type Counter = (key: string) => Promise<unknown>;

export type RateLimitFigures = {
  /** Counts a second of one client address over its limit: the shared counters beside @fastify/rate-limit's in-memory store. */
  usedUp: { shared: number; local: number };
  /** Counts a second of distinct addresses under their limit, `callers` at a time, and the statements that took: batched, beside one upsert per count. */
  distinct: { shared: number; perRequest: number; statementsPerSecond: number; callers: number };
};

/** How many counts `callers` concurrent callers make in `ms`, each awaiting its own before the next. */
async function rate(count: Counter, key: (caller: number, n: number) => string, callers: number, ms: number): Promise<number> {
  const end = performance.now() + ms;
  let done = 0;
  await Promise.all(
    Array.from({ length: callers }, async (_, caller) => {
      for (let n = 0; performance.now() < end; n++, done++) await count(key(caller, n));
    }),
  );
  return done / (ms / 1000);
}

/**
 * The shared rate-limit counters on PostgreSQL (docs/store-engines.md#rate-limits-across-instances), in a schema of their
 * own at `databaseUrl`: a flood from one address over its limit, beside the in-memory store the
 * DuckDB engine uses; and clicks of distinct addresses under their limit, 512 callers at a time,
 * beside the same upsert sent once per count on one connection (what an unbatched exact counter costs).
 */
export async function benchRateLimits(databaseUrl: string, seconds = 5): Promise<RateLimitFigures> {
  const schema = await postgresSchema(databaseUrl, 'rate_limits');
  const store = await PostgresStore.open(schema.url);
  try {
    const counters = new SharedCounters(store);
    const windowMs = 3_600_000;
    const shared: Counter = (key) => counters.count(key, windowMs, 60, true);
    const LocalStore = createRequire(import.meta.url)('@fastify/rate-limit/store/LocalStore') as new (...args: unknown[]) => {
      incr(key: string, cb: (error: Error | null) => void, timeWindow: number, max: number): void;
    };
    const memory = new LocalStore(false, false, 5000);
    const local: Counter = (key) => new Promise((done) => memory.incr(key, done, windowMs, 60));
    for (let n = 0; n < 60; n++) await Promise.all([shared('flooder'), local('flooder')]);
    const usedUp = { shared: await rate(shared, () => 'flooder', 512, seconds * 1000), local: await rate(local, () => 'flooder', 512, seconds * 1000) };

    // The same counters over the same store, counting the round trips they make.
    let statements = 0;
    const counting = new SharedCounters({ autocommit: (fn) => (statements++, store.autocommit(fn)) } as Pick<PostgresStore, 'autocommit'> as PostgresStore);
    statements = 0;
    const batched = await rate((key) => counting.count(key, windowMs, 60, true), (caller, n) => `address-${caller}-${n}`, 512, seconds * 1000);
    const perRequest = await store.autocommit(async (sql) =>
      rate((key) => sql.run(`INSERT INTO rate_counters (key, count, ends_at) VALUES ($1, 1, 0) ON CONFLICT (key) DO UPDATE SET count = rate_counters.count + 1`, [key]), (caller, n) => `single-${caller}-${n}`, 1, seconds * 1000),
    );
    return { usedUp, distinct: { shared: batched, perRequest, statementsPerSecond: statements / seconds, callers: 512 } };
  } finally {
    await store.close();
    await schema.drop();
  }
}
