import { findApiKeyByHash, type ApiKeyRow } from '../store/api-keys.js';
import type { Store } from '../store/db.js';
import { sha256 } from './secrets.js';
import { ForgetfulCache, perStore } from './store-cache.js';

// Keys are read on every tracking request. This process alone writes the database, so a cache
// of the keys it has seen stays true as long as retiring a key forgets it (changingApiKey).
const cacheOf = perStore(() => new ForgetfulCache<string, ApiKeyRow>());

/** The stored key for a bearer token, or undefined; unknown tokens are not cached. */
export async function lookupApiKey(store: Store, token: string): Promise<ApiKeyRow | undefined> {
  const hash = sha256(token);
  const cache = cacheOf(store);
  const cached = cache.get(hash);
  if (cached) return cached;
  const [found] = await cache.load(async () => {
    const key = await store.read((sql) => findApiKeyByHash(sql, hash));
    return key ? [[hash, key] as const] : [];
  });
  return found?.[1];
}

/** Runs a write that changes a key; the cache forgets the key once it settled. */
export function changingApiKey<T>(store: Store, keyId: number, change: () => Promise<T>): Promise<T> {
  return cacheOf(store).changing(change, (_, key) => key.id === keyId);
}
