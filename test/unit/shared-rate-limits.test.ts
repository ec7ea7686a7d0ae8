import { afterEach, describe, expect, test, vi } from 'vitest';
import { SharedCounters } from '../../src/http/shared-rate-limits.js';
import type { ListParam, Params, Sql } from '../../src/store/db.js';
import type { PostgresStore } from '../../src/store/postgres-store.js';

/*
 * The shared counters' batching and their used-up windows (docs/store-engines.md#rate-limits-across-instances), over a
 * store that keeps the counter table in memory and records the statements it was sent. The counts
 * across instances on a real database are test/http/rate-limits-shared.test.ts's.
 */

type Row = { count: number; ends_at: number };
const values = (param: unknown) => (param as ListParam).values as Array<string | number>;

/** A store whose autocommit() runs the counter statements on a Map; `statements` lists their first words. */
function counterStore() {
  const rows = new Map<string, Row>();
  const statements: string[] = [];
  const sql = {
    async run(text: string) {
      statements.push(text.split(' ').slice(0, 2).join(' '));
    },
    async all(text: string, params: Params = []) {
      statements.push(text.split(' ').slice(0, 2).join(' '));
      const now = params.at(-1) as number;
      const keys = values(params[0]) as string[];
      if (text.startsWith('SELECT')) return keys.flatMap((key) => (rows.get(key)?.ends_at ?? 0) > now ? [{ key, ...rows.get(key)! }] : []);
      return keys.map((key, i) => {
        const [count, windowMs] = [values(params[1])[i] as number, values(params[2])[i] as number];
        const row = rows.get(key);
        const next = row && row.ends_at > now ? { count: row.count + count, ends_at: row.ends_at } : { count, ends_at: now + windowMs };
        rows.set(key, next);
        return { key, ...next };
      });
    },
  } as unknown as Sql;
  const store = { autocommit: async <T>(fn: (sql: Sql) => Promise<T>) => fn(sql) } as unknown as PostgresStore;
  return { store, statements };
}

afterEach(() => void vi.useRealTimers());

describe('shared rate-limit counters', () => {
  test('requests that arrive while a statement runs go together in the next one, each with its own place in the count', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 0 });
    const { store, statements } = counterStore();
    const counters = new SharedCounters(store);
    statements.length = 0;
    const states = await Promise.all([1, 2, 3, 4, 5].map(() => counters.count('k', 60_000, 10, true)));
    expect(states).toEqual([1, 2, 3, 4, 5].map((current) => ({ current, ttl: 60_000 })));
    expect(statements).toEqual(['INSERT INTO', 'INSERT INTO']);
  });

  test('a used-up window is refused without a statement until it ends; then a new window starts', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 0 });
    const { store, statements } = counterStore();
    const counters = new SharedCounters(store);
    for (let n = 1; n <= 3; n++) expect(await counters.count('k', 60_000, 3, true)).toEqual({ current: n, ttl: 60_000 });
    statements.length = 0;
    vi.setSystemTime(20_000);
    expect(await counters.count('k', 60_000, 3, true)).toEqual({ current: 4, ttl: 40_000 });
    expect(await counters.count('k', 60_000, 3, false)).toEqual({ current: 3, ttl: 40_000 });
    expect(statements).toEqual([]);
    vi.setSystemTime(60_000);
    expect(await counters.count('k', 60_000, 3, true)).toEqual({ current: 1, ttl: 60_000 });
    expect(statements).toEqual(['INSERT INTO', 'DELETE FROM']);
  });

  test('a read counts nothing: a key without a window reads 0', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 0 });
    const { store } = counterStore();
    const counters = new SharedCounters(store);
    expect(await counters.count('k', 1000, 3, false)).toEqual({ current: 0, ttl: 0 });
    await counters.count('k', 1000, 3, true);
    expect(await counters.count('k', 1000, 3, false)).toEqual({ current: 1, ttl: 1000 });
  });
});
