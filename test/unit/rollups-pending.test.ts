import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test, vi } from 'vitest';
import type { Sql, Store } from '../../src/store/db.js';
import { DuckDBStore } from '../../src/store/duckdb-store.js';
import { IDS_AHEAD } from '../../src/store/pending-rows.js';
import { performance } from '../../src/store/reports.js';
import { rollupDrift } from '../../src/store/rollups.js';
import { markConverted } from '../../src/store/tracking.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { checkedRollups } from '../helpers/engine.js';

/*
 * DuckDB's pending rows (docs/rollups.md#pending-rows): a transaction records the rows it appended
 * or updated instead of rolling them up; the roll-up adds them later. Reports reading them either
 * way answer the same: performance.test.ts and partner-report.test.ts read each report both ways.
 */

const NOW = '2026-03-05T10:30:00.000Z';

const pending = (store: Store) =>
  store.read((sql) => sql.all('SELECT table_name, first_id, last_id FROM rollups_pending ORDER BY table_name, first_id'));

/** The program's day row of the rollups, its counts as numbers (none: all zero). */
async function dayRollup(store: Store, programId: number) {
  const row = await store.read((sql) =>
    sql.one<Record<string, bigint | null>>(
      `SELECT sum(clicks) AS clicks, sum(leads) AS leads, sum(lead_status) AS lead_status, sum(conversions) AS conversions,
        sum(sales) AS sales, sum(revenue_cents) AS revenue_cents
      FROM report_rollups WHERE span = 'day' AND program_id = $1`,
      [programId],
    ),
  );
  return Object.fromEntries(Object.entries(row!).map(([k, v]) => [k, Number(v ?? 0)]));
}

const none = { clicks: 0, leads: 0, lead_status: 0, conversions: 0, sales: 0, revenue_cents: 0 };

/** An app whose rows stay pending until the test rolls them up (or `rollUpMs` passes). */
async function app(rollUpMs = 3_600_000): Promise<TestApp> {
  const store = checkedRollups(await DuckDBStore.open(':memory:', { rollUpMs }));
  onTestFinished(() => store.close());
  return buildTestApp({ now: NOW, store });
}

describe('pending rows (DuckDB)', () => {
  test('an append records a range reaching IDS_AHEAD ids past its rows, which covers the next appends; the roll-up adds their sums and empties the table', async () => {
    const t = await app();
    const program = await t.program();
    await t.click(program);
    await t.click(program);
    await t.lead(program, 'cust_1');
    expect(IDS_AHEAD).toBe(10_000);
    expect(await pending(t.store)).toEqual([
      { table_name: 'clicks', first_id: 1, last_id: 10_001 },
      { table_name: 'customers', first_id: 1, last_id: 10_001 },
      { table_name: 'partner_programs', first_id: 1, last_id: 10_001 },
    ]);
    expect(await dayRollup(t.store, program.id)).toEqual(none);
    expect(await t.store.read((sql) => rollupDrift(sql))).toEqual([]);

    await t.store.rollUp();
    expect(await pending(t.store)).toEqual([]);
    expect(await dayRollup(t.store, program.id)).toEqual({ ...none, clicks: 3, leads: 1, lead_status: 1 });
    expect(await t.store.read((sql) => rollupDrift(sql))).toEqual([]);
  });

  test('an update of a rolled-up row takes its sums out at once and leaves the row pending; the roll-up adds it back as it now is', async () => {
    const t = await app();
    const program = await t.program();
    await t.lead(program, 'cust_1');
    await t.store.rollUp();
    await t.sale(program);
    expect(await dayRollup(t.store, program.id)).toEqual({ ...none, clicks: 1 });
    expect((await pending(t.store)).map((r) => r.table_name)).toEqual(['commissions', 'customers', 'sale_events']);
    expect(await t.store.read((sql) => rollupDrift(sql))).toEqual([]);

    await t.store.rollUp();
    expect(await dayRollup(t.store, program.id)).toEqual({ ...none, clicks: 1, leads: 1, conversions: 1, sales: 1, revenue_cents: 4999 });
    expect(await t.store.read((sql) => rollupDrift(sql))).toEqual([]);
  });

  test('an update of a pending row changes no rollup: the roll-up adds the row once, as it is then', async () => {
    const t = await app();
    const program = await t.program();
    await t.lead(program, 'cust_1');
    await t.sale(program);
    expect(await dayRollup(t.store, program.id)).toEqual(none);
    expect((await pending(t.store)).filter((r) => r.table_name === 'customers')).toEqual([{ table_name: 'customers', first_id: 1, last_id: 10_001 }]);
    await t.store.rollUp();
    expect(await dayRollup(t.store, program.id)).toEqual({ ...none, clicks: 1, leads: 1, conversions: 1, sales: 1, revenue_cents: 4999 });
  });

  test('an update of a rolled-up row records that row alone; the ids reserved for a bulk load start past every pending range', async () => {
    const t = await app();
    const program = await t.program();
    const { customerId } = await t.lead(program, 'cust_1');
    await t.lead(program, 'cust_2');
    await t.store.rollUp();
    await t.store.transaction((sql) => markConverted(sql, [customerId], new Date(NOW)));
    expect(await pending(t.store)).toEqual([{ table_name: 'customers', first_id: customerId, last_id: customerId }]);
    await t.click(program);
    const store = t.store as DuckDBStore;
    expect(await store.reserveIds('clicks', 100)).toBe(3 + IDS_AHEAD + 1);
    expect(await store.reserveIds('customers', 100)).toBe(3);
    // The writer's own next ids follow the reserved ones.
    expect(await store.transaction((sql) => store.nextId(sql, 'clicks'))).toBe(3 + IDS_AHEAD + 101);
  });

  test('a transaction rolled back after an update leaves the rollups and the pending rows as they were', async () => {
    const t = await app();
    const program = await t.program();
    const { customerId } = await t.lead(program, 'cust_1');
    await t.store.rollUp();
    await expect(
      t.store.transaction(async (sql) => {
        await markConverted(sql, [customerId], new Date(NOW));
        throw new Error('the rest of the transaction failed');
      }),
    ).rejects.toThrow('the rest of the transaction failed');
    expect(await pending(t.store)).toEqual([]);
    expect(await dayRollup(t.store, program.id)).toEqual({ ...none, clicks: 1, leads: 1, lead_status: 1 });
    // The row is not pending: a later update takes its sums out again.
    await t.store.transaction((sql) => markConverted(sql, [customerId], new Date(NOW)));
    expect(await dayRollup(t.store, program.id)).toEqual({ ...none, clicks: 1 });
    expect(await t.store.read((sql) => rollupDrift(sql))).toEqual([]);
  });

  test('a report reads the pending rows of the tables that have some; a lead committed meanwhile makes it read again, with every table', async () => {
    const t = await app();
    const program = await t.program();
    await t.lead(program, 'cust_1');
    await t.store.rollUp();
    await t.click(program);
    const day = { from: new Date('2026-03-05T00:00:00.000Z'), to: new Date('2026-03-05T23:59:59.999Z') };
    const w = { ...day, previousFrom: new Date('2026-03-04T00:00:00.000Z'), previousTo: new Date('2026-03-04T23:59:59.999Z') };
    const totals = (sql: Sql) => performance(sql, program.id, w).then(({ current }) => ({ clicks: current.clicks, leads: current.leads }));

    const seen: string[][] = [];
    const answered = await t.store.read((sql) => {
      // The lead's click and customer commit while the report reads, pending: the customers table
      // had no pending rows when the report chose its tables.
      const racing = Object.assign(Object.create(sql) as Sql, {
        withPendingTables: <T>(fn: (tables: ReadonlySet<string>) => Promise<T>) =>
          sql.withPendingTables(async (tables) => {
            seen.push([...tables].sort());
            if (seen.length === 1) await t.lead(program, 'cust_2');
            return fn(tables);
          }),
      });
      return totals(racing);
    });
    expect(seen).toEqual([['clicks'], ['clicks', 'commissions', 'customers', 'partner_programs', 'refunds', 'sale_events']]);
    expect(answered).toEqual({ clicks: 3, leads: 2 });
    expect(await t.store.read(totals)).toEqual({ clicks: 3, leads: 2 });
  });

  test('the rows a process left pending are rolled up when the file is opened again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pk-pending-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const store = await DuckDBStore.open(join(dir, 'a.duckdb'), { rollUpMs: 3_600_000 });
    onTestFinished(() => store.close());
    const t = await buildTestApp({ now: NOW, store });
    const program = await t.program();
    await t.click(program);
    await t.click(program);
    // A snapshot is the file as a process that stopped now would leave it: the rows still pending.
    await store.backup(join(dir, 'b.duckdb'));
    const reopened = checkedRollups(await DuckDBStore.open(join(dir, 'b.duckdb')));
    onTestFinished(() => reopened.close());
    expect(await pending(reopened)).toEqual([]);
    expect(await dayRollup(reopened, program.id)).toEqual({ ...none, clicks: 2 });
  });

  test('the roll-up runs by itself, rollUpMs after a write', async () => {
    const t = await app(100);
    const program = await t.program();
    await t.click(program);
    await vi.waitFor(async () => expect(await pending(t.store)).toEqual([]), { timeout: 5000, interval: 100 });
    expect(await dayRollup(t.store, program.id)).toEqual({ ...none, clicks: 1 });
  });
});
