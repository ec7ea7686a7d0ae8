import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { migrations } from '../../src/store/migrations/index.js';
import { postgresMigrations } from '../../src/store/migrations/postgres.js';
import type { Store } from '../../src/store/db.js';
import { ADMIN_TOKEN, buildTestApp, type TestApp } from '../helpers/app.js';
import { runUnrolled, testDatabaseUrl, TEST_ENGINE } from '../helpers/engine.js';

// The reports on PostgreSQL read per-hour rollups kept by every instance in rows of its own
// (docs/rollups.md#how-reports-read-them); these answers are the ones the events give, on either engine.

/** A data dir's database path, removed when the test finishes. */
function databasePath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'partnerkit-instances-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'partnerkit.duckdb');
}

/**
 * Two instances of one database with their clocks at `now`: on PostgreSQL two apps, each with its
 * own store (its own writer id); a DuckDB file is held by one process, so there the second is the first.
 */
async function instances(now: string): Promise<{ a: TestApp; b: TestApp; at(iso: string): void }> {
  const path = databasePath();
  const a = await buildTestApp({ now, path });
  const b = TEST_ENGINE === 'postgres' ? await buildTestApp({ now, path }) : a;
  return { a, b, at: (iso) => [a, b].forEach((t) => t.clock.set(iso)) };
}

const get = async (t: TestApp, url: string) => {
  const response = await t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
};

const zero = { clicks: 0, leads: 0, conversions: 0, revenue: 0, partners: 0, sales: 0, commission: 0 };
const day = (date: string, values: Partial<typeof zero> = {}) => ({ date, period: date, ...zero, ...values });

describe('reports over events written through two instances of one database', () => {
  test('clicks, leads, sales, a refund and a rejected commission in the same hours, through either instance: each counted once, the partial hours of a window by instant', async () => {
    const { a, b, at } = await instances('2026-03-05T10:00:00.000Z');
    const program = await a.program(); // its partner enrolled at 10:00
    at('2026-03-05T10:15:00.000Z');
    const [first] = [await a.click(program), await a.click(program)];
    await a.lead(program, 'c1', { click_id: first });
    at('2026-03-05T10:40:00.000Z');
    // A visitor of its own: each app's factories number their visitors from 1, and one visitor's
    // clicks within the hour count once, whichever instance records them.
    const second = await b.post('/api/v1/track/click', { ref: program.refCode }, undefined, { 'user-agent': 'a visitor of instance b' });
    await b.lead(program, 'c2', { click_id: second.json().click_id });
    at('2026-03-05T11:30:00.000Z');
    const s1 = await b.sale(program, { transaction_id: 's1', amount_cents: 10_000, customer_key: 'c1' }); // converts a's lead
    await a.sale(program, { transaction_id: 's2', amount_cents: 5_000, customer_key: 'c2' });
    at('2026-03-06T09:00:00.000Z');
    const refund = await b.post('/api/v1/track/refund', { transaction_id: 's2', refund_id: 'r1' }, program.apiKey);
    expect(refund.json()).toMatchObject({ success: true, commission_status: 'reversed' });
    const reject = await a.app.inject({
      method: 'POST', url: `/api/programs/${program.id}/commissions/reject`, payload: { ids: [s1.commission_id] }, headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(reject.statusCode, reject.body).toBe(200);
    at('2026-03-10T15:00:00.000Z');

    for (const t of [a, b]) {
      // Whole days: s2 is refunded in full on its own day, both commissions are gone.
      const days = await get(t, `/api/tracking/performance/${program.id}?dateFrom=2026-03-05&dateTo=2026-03-06`);
      expect(days.data).toEqual([day('2026-03-05', { clicks: 3, leads: 2, conversions: 2, revenue: 100, partners: 1 }), day('2026-03-06')]);
      expect(days.metrics).toMatchObject({
        totalClicks: 3, totalLeads: 0, totalConversions: 2, totalRevenue: 100, totalSales: 1, totalPartners: 1, totalPartnersCommission: 0, totalRefunded: 50,
      });
      const partners = await get(t, `/api/tracking/performance/${program.id}/partners?dateFrom=2026-03-05&dateTo=2026-03-06`);
      expect(partners.data).toEqual([
        expect.objectContaining({ partnerId: program.partnerId, clicks: 3, leads: 0, conversions: 2, sales: 1, revenue: 100, commission: 0 }),
      ]);

      // 10:30 to 11:29:59.999 cuts two hours: only b's click and lead; the previous window, from
      // 09:30:00.001, has a's two clicks and its lead and the enrollment.
      const cut = await get(t, `/api/tracking/performance/${program.id}?dateFrom=2026-03-05T10:30:00Z&dateTo=2026-03-05T11:29:59.999Z`);
      expect(cut.data).toEqual([day('2026-03-05', { clicks: 1, leads: 1 })]);
      expect(cut.metrics).toMatchObject({
        totalClicks: 1, totalConversions: 0, totalRevenue: 0,
        clicksTrend: { trend: 50, trendDirection: 'down' },
        partnersTrend: { trend: 100, trendDirection: 'down' },
      });
      const cutPartners = await get(t, `/api/tracking/performance/${program.id}/partners?dateFrom=2026-03-05T10:30:00Z&dateTo=2026-03-05T11:29:59.999Z`);
      expect(cutPartners.data).toEqual([expect.objectContaining({ clicks: 1, leads: 0, conversions: 0, revenue: 0 })]);
    }
  });
});

/** The migrations of the test's engine before the one that builds the rollups from the events already stored. */
const before = <M extends { version: number; name: string }>(all: readonly M[], name: string) => all.filter((m) => m.version < all.find((r) => r.name === name)!.version);
const EARLIER_MIGRATIONS = TEST_ENGINE === 'postgres' ? before(postgresMigrations, 'report rollups') : before(migrations, 'report-rollups');

describe('events stored before the rollups existed', () => {
  test('are reported after it as the events give them', async () => {
    const path = databasePath();
    const older: Store =
      TEST_ENGINE === 'postgres'
        ? await (await import('../../src/store/postgres-store.js')).PostgresStore.open(testDatabaseUrl(path), { migrations: EARLIER_MIGRATIONS })
        : await (await import('../../src/store/duckdb-store.js')).DuckDBStore.open(path, { migrations: EARLIER_MIGRATIONS });
    const ts = (at: string) => `TIMESTAMP '2026-03-05 ${at}'`;
    await older.transaction(async (sql) => {
      for (const statement of [
        `INSERT INTO programs (id, name, commission_type, commission_value, attribution_window_days, hold_days, recurring_months, webhook_secret, created_at, approval, min_payout_cents)
         VALUES (1, 'Older', 'percent', 2000, 90, 30, NULL, 'whsec_older', ${ts('09:00:00')}, 'auto', 0)`,
        `INSERT INTO partners (id, name, email, created_at) VALUES (1, 'P', 'p@example.com', ${ts('09:00:00')})`,
        `INSERT INTO partner_programs (id, partner_id, program_id, ref_code, status, created_at) VALUES (1, 1, 1, 'older', 'active', ${ts('09:30:00')})`,
        `INSERT INTO clicks (id, click_id, program_id, partner_program_id, is_test, created_at, day) VALUES
           (1, 'ck_1_a', 1, 1, false, ${ts('10:15:00')}, DATE '2026-03-05'), (2, 'ck_2_b', 1, 1, false, ${ts('10:20:00')}, DATE '2026-03-05'),
           (3, 'ck_3_c', 1, 1, true, ${ts('10:25:00')}, NULL)`,
        `INSERT INTO customers (id, customer_ref, program_id, customer_key, click_id, partner_program_id, signup_date, attributed_from, first_purchase_date, status, signup_day, first_purchase_day)
         VALUES (1, '1:c1', 1, 'c1', 1, 1, ${ts('10:30:00')}, ${ts('10:15:00')}, ${ts('11:00:00')}, 'conversion', DATE '2026-03-05', DATE '2026-03-05'),
           (2, '1:c2', 1, 'c2', 2, 1, ${ts('10:35:00')}, ${ts('10:20:00')}, NULL, 'lead', DATE '2026-03-05', NULL)`,
        `INSERT INTO sale_events (id, program_id, customer_id, partner_program_id, transaction_id, amount_cents, currency, sale_type, is_recurring, source, status, received_at, paid_day)
         VALUES (1, 1, 1, 1, 's1', 8000, 'USD', 'payment', false, 'api', 'paid', ${ts('11:00:00')}, DATE '2026-03-05')`,
        `INSERT INTO commissions (id, program_id, sale_id, partner_program_id, amount_cents, currency, status, hold_until, created_at, day, type)
         VALUES (1, 1, 1, 1, 1600, 'USD', 'pending', TIMESTAMP '2026-04-04 11:00:00', ${ts('11:00:00')}, DATE '2026-03-05', 'sale')`,
        `INSERT INTO refunds (id, refund_key, program_id, mode, refund_id, sale_id, partner_program_id, amount_cents, currency, source, completes_sale, paid_at, paid_day, received_at, day)
         VALUES (1, '1:live:r1', 1, 'live', 'r1', 1, 1, 3000, 'USD', 'api', false, ${ts('11:00:00')}, DATE '2026-03-05', ${ts('12:00:00')}, DATE '2026-03-05')`,
      ]) await runUnrolled(sql, statement);
    });
    await older.close();

    const t = await buildTestApp({ now: '2026-03-10T15:00:00.000Z', path });
    const report = await get(t, '/api/tracking/performance/1?dateFrom=2026-03-05&dateTo=2026-03-05');
    expect(report.data).toEqual([day('2026-03-05', { clicks: 2, leads: 2, conversions: 1, revenue: 50, partners: 1, commission: 16 })]);
    expect(report.metrics).toMatchObject({ totalLeads: 1, totalSales: 1, totalRefunded: 30 });
  });
});
