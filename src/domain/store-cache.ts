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
 * the COMMIT would otherwise put the old row back for good.
 */
export class ForgetfulCache<K, V> {
  private readonly entries = new Map<K, V>();
  private generation = 0;

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** Runs `read` and keeps what it returns, unless something was forgotten meanwhile. */
  async load(read: () => Promise<Array<readonly [K, V]>>): Promise<Array<readonly [K, V]>> {
    const generation = this.generation;
    const rows = await read();
    if (generation === this.generation) for (const [key, value] of rows) this.entries.set(key, value);
    return rows;
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
