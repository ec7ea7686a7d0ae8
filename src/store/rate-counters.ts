import { list, type Sql } from './db.js';

/*
 * The rate limits' counters on PostgreSQL, shared by every instance (docs/store-engines.md#rate-limits-across-instances):
 * a row per key with its count in the current window and the instant the window ends, in epoch
 * milliseconds of the instances' clocks (the table: PostgreSQL migration 3).
 */

/** A key's count in its current window, which ends at `ends_at`. */
export type WindowCount = { key: string; count: number; ends_at: number };

/** Requests to count against a key, whose window (when a new one starts) lasts `windowMs`. */
export type Increment = { key: string; count: number; windowMs: number };

/**
 * Adds each increment to its key's window at `now`, starting a new window where the last one has
 * ended; answers the counts after. One statement, atomic per row, whatever other instances add at
 * the same time; rows are locked in key order, so two instances' statements cannot deadlock.
 * Keys must be distinct.
 */
export function addCounts(sql: Sql, increments: readonly Increment[], now: number): Promise<WindowCount[]> {
  const sorted = [...increments].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return sql.all<WindowCount>(
    `INSERT INTO rate_counters AS r (key, count, ends_at)
     SELECT key, count, $4::BIGINT + window_ms FROM unnest($1::VARCHAR[], $2::BIGINT[], $3::BIGINT[]) WITH ORDINALITY AS i(key, count, window_ms, n) ORDER BY n
     ON CONFLICT (key) DO UPDATE SET
       count = CASE WHEN r.ends_at <= $4 THEN excluded.count ELSE r.count + excluded.count END,
       ends_at = CASE WHEN r.ends_at <= $4 THEN excluded.ends_at ELSE r.ends_at END
     RETURNING key, count, ends_at`,
    [list(sorted.map((i) => i.key)), list(sorted.map((i) => i.count)), list(sorted.map((i) => i.windowMs)), now],
  );
}

/** The counts of the keys whose window has not ended at `now` (a key without one has counted nothing). */
export function readCounts(sql: Sql, keys: readonly string[], now: number): Promise<WindowCount[]> {
  return sql.all<WindowCount>('SELECT key, count, ends_at FROM rate_counters WHERE key = ANY($1::VARCHAR[]) AND ends_at > $2', [list(keys), now]);
}

/** Forgets the windows that ended before `now`. */
export function deleteEndedCounts(sql: Sql, now: number): Promise<void> {
  return sql.run('DELETE FROM rate_counters WHERE ends_at <= $1', [now]);
}
