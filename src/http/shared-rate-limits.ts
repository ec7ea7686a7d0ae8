import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Store } from '../store/db.js';
import { addCounts, deleteEndedCounts, readCounts, type Increment, type WindowCount } from '../store/rate-counters.js';

/** What @fastify/rate-limit makes of a count: the requests in the window so far and the milliseconds left of it. */
type CountState = { current: number; ttl: number };

type Waiting = { key: string; windowMs: number; max: number; increment: boolean; resolve(state: CountState): void; reject(error: unknown): void };

/** How often the counts of ended windows are deleted, in milliseconds. */
const SWEEP_MS = 60_000;

/**
 * The rate limits' counters shared by every instance of a PostgreSQL database
 * (docs/store-engines.md#rate-limits-across-instances), exact: each count is one atomic increment in the database. What
 * keeps it cheap:
 *
 * - Batches: one statement at a time per instance; the requests that arrive meanwhile wait and go
 *   together in the next one, a row per key. A flood costs a statement per round trip, not per
 *   request.
 * - Used-up windows: a key whose count has reached its maximum stays refused until its window ends
 *   (other instances only add to it), so it is refused here without asking the database. A flood
 *   over the limit costs nothing more.
 *
 * Windows are timed by this instance's clock, which every instance must keep right (NTP), as
 * `Date.now()` is for the in-memory counters.
 */
export class SharedCounters {
  private waiting: Waiting[] = [];
  private running = false;
  private sweptAt = Date.now();
  /** Keys whose window was used up, with the count reached and when the window ends. */
  private readonly usedUp = new Map<string, { count: number; endsAt: number }>();

  constructor(private readonly store: Store) {}

  /** Counts a request against `key` (or only reads its count): the state after it. */
  count(key: string, windowMs: number, max: number, increment: boolean): Promise<CountState> {
    const now = Date.now();
    const usedUp = this.usedUp.get(key);
    if (usedUp && usedUp.endsAt > now) return Promise.resolve({ current: usedUp.count + (increment ? 1 : 0), ttl: usedUp.endsAt - now });
    return new Promise((resolve, reject) => {
      this.waiting.push({ key, windowMs, max, increment, resolve, reject });
      void this.run();
    });
  }

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.waiting.length > 0) {
        const batch = this.waiting;
        this.waiting = [];
        await this.apply(batch);
      }
    } finally {
      this.running = false;
    }
  }

  /** One round trip for a batch: its reads, then its increments; each request gets its own place in its key's count. */
  private async apply(batch: Waiting[]): Promise<void> {
    const now = Date.now();
    const increments = new Map<string, Increment>();
    const reads = new Set<string>();
    for (const { key, windowMs, increment } of batch) {
      if (!increment) reads.add(key);
      else if (increments.has(key)) increments.get(key)!.count++;
      else increments.set(key, { key, count: 1, windowMs });
    }
    const sweep = now - this.sweptAt >= SWEEP_MS;
    let counts: { read: Map<string, WindowCount>; added: Map<string, WindowCount> };
    try {
      counts = await this.store.autocommit(async (sql) => {
        const read = reads.size > 0 ? await readCounts(sql, [...reads], now) : [];
        const added = increments.size > 0 ? await addCounts(sql, [...increments.values()], now) : [];
        if (sweep) await deleteEndedCounts(sql, now);
        return { read: new Map(read.map((c) => [c.key, c])), added: new Map(added.map((c) => [c.key, c])) };
      });
    } catch (error) {
      for (const request of batch) request.reject(error);
      return;
    }
    if (sweep) this.sweep(now);
    // The batch's requests of a key take the last places of the count it reached, in arrival order.
    const placed = new Map<string, number>();
    for (const { key, max, increment, resolve } of batch) {
      const counted = increment ? counts.added.get(key) : counts.read.get(key);
      if (!counted) {
        resolve({ current: 0, ttl: 0 });
        continue;
      }
      let current = counted.count;
      if (increment) {
        placed.set(key, (placed.get(key) ?? 0) + 1);
        current += placed.get(key)! - increments.get(key)!.count;
      }
      if (counted.count >= max) this.usedUp.set(key, { count: counted.count, endsAt: counted.ends_at });
      resolve({ current, ttl: counted.ends_at - now });
    }
  }

  private sweep(now: number): void {
    this.sweptAt = now;
    for (const [key, { endsAt }] of this.usedUp) if (endsAt <= now) this.usedUp.delete(key);
  }
}

/**
 * A store for @fastify/rate-limit over the shared counters. Each limiter counts under a name of
 * its own, the same in every instance: its `groupId`, else its route's method and URL.
 */
export function sharedRateLimitStore(counters: SharedCounters): FastifyRateLimitStoreCtor {
  class SharedStore {
    // The plugin makes the first one from its options; only the children it makes of it count.
    constructor(_options: unknown, private readonly name = '') {}

    incr(key: string, callback: (error: Error | null, result?: CountState) => void, timeWindow: number, max: number): void {
      counters.count(`${this.name} ${key}`, timeWindow, max, true).then((state) => callback(null, state), callback);
    }

    read(key: string, callback: (error: Error | null, result?: CountState) => void, timeWindow: number, max: number): void {
      counters.count(`${this.name} ${key}`, timeWindow, max, false).then((state) => callback(null, state), callback);
    }

    // The plugin passes the limiter's options, its route (if any) in routeInfo; its types say otherwise.
    child(options: { groupId?: string; routeInfo?: { method?: string | string[]; url?: string } }): SharedStore {
      const name = options.groupId ?? (options.routeInfo?.url && `${options.routeInfo.method} ${options.routeInfo.url}`);
      if (!name) throw new Error('a shared rate limit needs a groupId or a route');
      return new SharedStore(null, name);
    }
  }
  return SharedStore as unknown as FastifyRateLimitStoreCtor;
}
