import type { Sql } from './db.js';

export type ApiKeyMode = 'live' | 'test';

export type ApiKeyRow = {
  id: number;
  program_id: number;
  mode: ApiKeyMode;
  key_hash: string;
  prefix: string;
  status: 'active' | 'retired';
  created_at: Date;
  retired_at: Date | null;
};

export async function insertApiKey(sql: Sql, key: Omit<ApiKeyRow, 'retired_at'>): Promise<void> {
  await sql.run(
    'INSERT INTO api_keys (id, program_id, mode, key_hash, prefix, status, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [key.id, key.program_id, key.mode, key.key_hash, key.prefix, key.status, key.created_at],
  );
}

export function findApiKeyByHash(sql: Sql, keyHash: string): Promise<ApiKeyRow | undefined> {
  return sql.one<ApiKeyRow>('SELECT * FROM api_keys WHERE key_hash = $1', [keyHash]);
}

export function findApiKey(sql: Sql, programId: number, id: number): Promise<ApiKeyRow | undefined> {
  return sql.one<ApiKeyRow>('SELECT * FROM api_keys WHERE program_id = $1 AND id = $2', [programId, id]);
}

export function programApiKeys(sql: Sql, programId: number): Promise<ApiKeyRow[]> {
  return sql.all<ApiKeyRow>('SELECT * FROM api_keys WHERE program_id = $1 ORDER BY id', [programId]);
}

export async function markApiKeyRetired(sql: Sql, id: number, at: Date): Promise<void> {
  await sql.run("UPDATE api_keys SET status = 'retired', retired_at = $2 WHERE id = $1", [id, at]);
}
