import { findApiKeyByHash, type ApiKeyRow } from '../store/api-keys.js';
import type { Store } from '../store/db.js';
import { cacheLifetime, ForgetfulCache, perStore } from './store-cache.js';

/** Unknown tokens remembered at most (the oldest make room): a flood of random keys cannot grow memory. */
export const MAX_UNKNOWN_TOKENS = 10_000;

// Keys are read on every tracking request. When this process alone writes the database, a cache of
// the keys it has seen stays true as long as retiring a key forgets it (changingApiKey), and a
// cache of the tokens it found unknown as long as creating a key forgets them (creatingApiKeys).
// On a shared database entries also expire, so a key retired through another instance is refused
// here within a second (docs/store-engines.md#what-a-process-may-remember).
const cachesOf = perStore((store) => ({
  known: new ForgetfulCache<string, ApiKeyRow>(Infinity, cacheLifetime(store)),
  unknown: new ForgetfulCache<string, true>(MAX_UNKNOWN_TOKENS, cacheLifetime(store)),
}));

/**
 * What this process knows of a bearer token (by its SHA-256, the key's stored form) without reading
 * the store: its key, null for a token it looked up before and found unknown, or undefined when it
 * has not looked the token up.
 */
export function cachedApiKey(store: Store, hash: string): ApiKeyRow | null | undefined {
  const { known, unknown } = cachesOf(store);
  return known.get(hash) ?? (unknown.get(hash) ? null : undefined);
}

/** Reads the stored key for a bearer token's SHA-256, or undefined, and remembers the answer either way. */
export async function readApiKey(store: Store, hash: string): Promise<ApiKeyRow | undefined> {
  const { known, unknown } = cachesOf(store);
  let key: ApiKeyRow | undefined;
  // Each cache keeps the answer only if nothing was forgotten while the store was read.
  await unknown.load(async () => {
    const found = await known.load(async () => {
      const row = await store.read((sql) => findApiKeyByHash(sql, hash));
      return row ? [[hash, row] as const] : [];
    });
    key = found[0]?.[1];
    return key ? [] : [[hash, true] as const];
  });
  return key;
}

/** Runs a write that changes a key; the cache forgets the key once it settled. */
export function changingApiKey<T>(store: Store, keyId: number, change: () => Promise<T>): Promise<T> {
  return cachesOf(store).known.changing(change, (_, key) => key.id === keyId);
}

/** Runs a write that creates keys; every token remembered as unknown is forgotten once it settled. */
export function creatingApiKeys<T>(store: Store, create: () => Promise<T>): Promise<T> {
  return cachesOf(store).unknown.changing(create, () => true);
}
