import type { Store } from '../store/db.js';

/** One value per open store (tests open many stores in one process). */
export function perStore<T>(create: (store: Store) => T): (store: Store) => T {
  const values = new WeakMap<Store, T>();
  return (store) => {
    let value = values.get(store);
    if (value === undefined) values.set(store, (value = create(store)));
    return value;
  };
}

/**
 * How long a cached row is trusted when other processes write the same database: a change made
 * through another instance is seen by this one within it (docs/store-engines.md#what-a-process-may-remember).
 */
export const SHARED_CACHE_MS = 500;

/** How long a store's caches keep a row: for ever when this process alone writes it. */
export const cacheLifetime = (store: Store) => (store.shared ? SHARED_CACHE_MS : Infinity);

/**
 * Rows cached by key. A change this process makes forgets its rows after its COMMIT (or failure),
 * and a read that overlapped a forget does not fill the cache: a read started before the COMMIT
 * would otherwise put the old row back for good. With `maxEntries` the oldest entries make room for
 * new ones; with `maxAgeMs` an entry is dropped that long after it was read, which bounds how long
 * a change made by another process goes unseen.
 */
export class ForgetfulCache<K, V> {
  private readonly entries = new Map<K, { value: V; readAt: number }>();
  private generation = 0;

  constructor(
    private readonly maxEntries = Infinity,
    private readonly maxAgeMs = Infinity,
  ) {}

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (performance.now() - entry.readAt <= this.maxAgeMs) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Runs `read` and keeps what it returns, unless something was forgotten meanwhile. */
  async load(read: () => Promise<Array<readonly [K, V]>>): Promise<Array<readonly [K, V]>> {
    const generation = this.generation;
    const readAt = performance.now();
    const rows = await read();
    if (generation === this.generation) for (const [key, value] of rows) this.entries.set(key, { value, readAt });
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(key);
    }
    return rows;
  }

  /** The cached values of `keys`, reading the others with `read` (one round trip for all of them). */
  async getMany(keys: readonly K[], read: (missing: K[]) => Promise<Array<readonly [K, V]>>): Promise<Map<K, V>> {
    const found = new Map<K, V>();
    const missing: K[] = [];
    for (const key of keys) {
      const cached = this.get(key);
      if (cached === undefined) missing.push(key);
      else found.set(key, cached);
    }
    if (missing.length > 0) for (const [key, value] of await this.load(() => read(missing))) found.set(key, value);
    return found;
  }

  forget(matches: (key: K, value: V) => boolean): void {
    this.generation++;
    for (const [key, { value }] of this.entries) if (matches(key, value)) this.entries.delete(key);
  }

  /** Runs a change in the store's writer, forgetting what it touches once it settled. */
  async changing<T>(change: () => Promise<T>, matches: (key: K, value: V) => boolean): Promise<T> {
    try {
      return await change();
    } finally {
      this.forget(matches);
    }
  }
}
