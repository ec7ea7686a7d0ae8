import type { Store } from '../store/db.js';
import { findSetting, insertSetting } from '../store/settings.js';

const ADMIN_TOKEN_SETTING = 'admin_token_hash';

/**
 * On a shared database every instance must accept the same admin token (docs/store-engines.md#several-instances-on-postgresql):
 * the first data dir to open it records its token's hash, and a data dir with another token is
 * refused. Answers whether this token is the database's. A DuckDB file belongs to one data dir,
 * whose token file is the only one there is.
 */
export async function claimAdminToken(store: Store, tokenHash: string): Promise<boolean> {
  if (!store.shared) return true;
  const recorded = await store.transaction(async (sql) => {
    const found = await findSetting(sql, ADMIN_TOKEN_SETTING);
    if (found !== undefined) return found;
    await insertSetting(sql, ADMIN_TOKEN_SETTING, tokenHash);
    return tokenHash;
  });
  return recorded === tokenHash;
}
