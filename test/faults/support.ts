import { expect } from 'vitest';
import { errorCodes, type ErrorCode } from '../../src/errors.js';
import type { Store } from '../../src/store/db.js';

export { seededRandom } from '../../src/domain/demo-history.js';

/** The items in an order drawn from `random` (Fisher–Yates). */
export function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * An error answer is in one of the two documented envelopes (docs/api.md, src/errors.ts):
 * platform `{data:null,error:{status,name,message,details,code}}` or typed `{error:{code,message,…}}`,
 * with the code's envelope, status and name, and the HTTP status equal to error.status.
 */
export function expectErrorEnvelope(status: number, text: string): { code: ErrorCode; details: unknown } {
  let body: any;
  expect(() => (body = JSON.parse(text)), `error body is JSON: ${text.slice(0, 200)}`).not.toThrow();
  expect(body !== null && typeof body === 'object' && !Array.isArray(body), `error body is an object: ${text.slice(0, 200)}`).toBe(true);
  const code = body.error?.code as ErrorCode;
  const spec = errorCodes[code];
  expect(spec, `known error code in ${text.slice(0, 200)}`).toBeDefined();
  expect(spec.status, `status of ${code}`).toBe(status);
  if ('data' in body) {
    expect(Object.keys(body).sort()).toEqual(['data', 'error']);
    expect(body.data).toBeNull();
    expect(Object.keys(body.error).sort()).toEqual(['code', 'details', 'message', 'name', 'status']);
    expect(spec.envelope).toBe('platform');
    expect(body.error.status).toBe(status);
    expect(body.error.name).toBe(spec.name);
  } else {
    expect(Object.keys(body)).toEqual(['error']);
    expect(spec.envelope).toBe('typed');
  }
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  return { code, details: body.error.details };
}

/** The tables a request may write to; `conversions` counts customers turned into conversions. */
export const COUNTED = [
  'sale_events', 'commissions', 'sale_transactions', 'test_sale_events', 'customers', 'clicks', 'webhook_events', 'refunds', 'invoice_payments',
] as const;
export type Counts = Record<(typeof COUNTED)[number] | 'conversions', number>;

/** Row counts of every table a tracking request can write, in one query. */
export async function counts(store: Store): Promise<Counts> {
  const parts = COUNTED.map((table) => `SELECT '${table}' AS name, count(*) AS n FROM ${table}`);
  parts.push("SELECT 'conversions' AS name, count(*) AS n FROM customers WHERE status = 'conversion'");
  const rows = await store.read((sql) => sql.all<{ name: keyof Counts; n: number }>(parts.join(' UNION ALL ')));
  return Object.fromEntries(rows.map((row) => [row.name, row.n])) as Counts;
}

/** Each sale with its commission, by transaction id. */
export function salesOf(store: Store, where = 'true') {
  return store.read((sql) =>
    sql.all<{ transaction_id: string; amount_cents: number; commission: number | null }>(
      `SELECT s.transaction_id, s.amount_cents, c.amount_cents AS commission FROM sale_events s LEFT JOIN commissions c ON c.sale_id = s.id WHERE ${where} ORDER BY s.transaction_id`,
    ),
  );
}

/** after − before, per table; tables that did not change are left out. */
export function delta(before: Counts, after: Counts): Partial<Counts> {
  const changed: Partial<Counts> = {};
  for (const key of Object.keys(before) as Array<keyof Counts>) {
    if (after[key] !== before[key]) changed[key] = after[key] - before[key];
  }
  return changed;
}
