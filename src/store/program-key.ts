/**
 * A value scoped to one program, as one string: `<program id>:<part>[:<part>…]`. It is the stored
 * one-column unique key of customers (customer_ref), the sale ledger (txn_key) and webhook events
 * (event_key) — DuckDB finds single-column keys through their index and scans for compound ones —
 * and the key of every in-memory lookup by program. Never change its format: stored keys use it.
 */
export function programKey(programId: number, ...parts: Array<string | number>): string {
  return [programId, ...parts].join(':');
}
