import { findApiKeyByHash, type ApiKeyRow } from '../store/api-keys.js';
import type { Store } from '../store/db.js';
import type { Deps } from './deps.js';
import { sha256 } from './secrets.js';

// Keys are read on every tracking request. This process alone writes the database, so a cache
// of the keys it has seen stays true as long as retiring a key forgets it (forgetApiKey).
const caches = new WeakMap<Store, Map<string, ApiKeyRow>>();

function cacheOf(store: Store): Map<string, ApiKeyRow> {
  let cache = caches.get(store);
  if (!cache) caches.set(store, (cache = new Map()));
  return cache;
}

/** The stored key for a bearer token, or undefined; unknown tokens are not cached. */
export async function lookupApiKey({ store }: Deps, token: string): Promise<ApiKeyRow | undefined> {
  const hash = sha256(token);
  const cache = cacheOf(store);
  const cached = cache.get(hash);
  if (cached) return cached;
  const key = await store.read((sql) => findApiKeyByHash(sql, hash));
  if (key) cache.set(hash, key);
  return key;
}

export function forgetApiKey({ store }: Deps, keyId: number): void {
  const cache = cacheOf(store);
  for (const [hash, key] of cache) if (key.id === keyId) cache.delete(hash);
}
