import type { Store } from '../store/db.js';

/** One value per open store (tests open many stores in one process). */
export function perStore<T>(create: () => T): (store: Store) => T {
  const values = new WeakMap<Store, T>();
  return (store) => {
    let value = values.get(store);
    if (value === undefined) values.set(store, (value = create()));
    return value;
  };
}

/**
 * Rows this process alone writes, cached by key. A change forgets its rows after its COMMIT (or
 * failure), and a read that overlapped a forget does not fill the cache: a read started before
 * the COMMIT would otherwise put the old row back for good. With `maxEntries` the oldest entries
 * make room for new ones.
 */
export class ForgetfulCache<K, V> {
  private readonly entries = new Map<K, V>();
  private generation = 0;

  constructor(private readonly maxEntries = Infinity) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Runs `read` and keeps what it returns, unless something was forgotten meanwhile. */
  async load(read: () => Promise<Array<readonly [K, V]>>): Promise<Array<readonly [K, V]>> {
    const generation = this.generation;
    const rows = await read();
    if (generation === this.generation) for (const [key, value] of rows) this.entries.set(key, value);
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
      const cached = this.entries.get(key);
      if (cached === undefined) missing.push(key);
      else found.set(key, cached);
    }
    if (missing.length > 0) for (const [key, value] of await this.load(() => read(missing))) found.set(key, value);
    return found;
  }

  forget(matches: (key: K, value: V) => boolean): void {
    this.generation++;
    for (const [key, value] of this.entries) if (matches(key, value)) this.entries.delete(key);
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
