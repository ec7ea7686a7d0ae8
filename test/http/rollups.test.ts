import { describe, expect, test } from 'vitest';
import { list } from '../../src/store/db.js';
import { rollupDrift } from '../../src/store/rollups.js';
import { buildTestApp } from '../helpers/app.js';
import { driftText } from '../helpers/engine.js';

/* The report rollups on either engine (docs/rollups.md): what a drift looks like, and the refusal of run(). */
describe('report rollups', () => {
  test('a rollup row changed by hand is a drift: the check names its key and both sums; undone, the check is empty', async () => {
    const t = await buildTestApp({ now: '2026-03-05T10:30:00.000Z' });
    const program = await t.program();
    await t.click(program);
    await t.click(program);
    await t.store.rollUp();
    expect(await t.store.read((sql) => rollupDrift(sql))).toEqual([]);

    const corrupt = (by: number) =>
      t.store.transaction((sql) => sql.run("UPDATE report_rollups SET clicks = clicks + $1 WHERE span = 'day' AND partner_program_id = $2", [by, program.partnerProgramId]));
    await corrupt(1);
    const drift = await t.store.read((sql) => rollupDrift(sql, program.id));
    expect(drift).toEqual([{
      program_id: program.id, span: 'day', starts_at: new Date('2026-03-05T00:00:00.000Z'), partner_program_id: program.partnerProgramId,
      stored: { clicks: '3', leads: '0', lead_status: '0', conversions: '0', sales: '0', partners: '1', revenue_cents: '0', commission_cents: '0', refunded_cents: '0' },
      rebuilt: { clicks: '2', leads: '0', lead_status: '0', conversions: '0', sales: '0', partners: '1', revenue_cents: '0', commission_cents: '0', refunded_cents: '0' },
    }]);
    expect(driftText(drift)).toBe(`program ${program.id}, day 2026-03-05T00:00:00.000Z, enrollment ${program.partnerProgramId}: clicks stored 3, events say 2`);
    await corrupt(-1);
    expect(await t.store.read((sql) => rollupDrift(sql))).toEqual([]);
  });

  test('run() refuses a statement that writes a rolled-up table; write() changes the rows and their rollups together', async () => {
    const t = await buildTestApp({ now: '2026-03-05T10:30:00.000Z' });
    const program = await t.program();
    await t.lead(program, 'cust_1');
    await expect(t.store.transaction((sql) => sql.run("UPDATE customers SET status = 'conversion'"))).rejects.toThrow(
      'run() does not write customers: the reports roll it up, so write() or append() does (docs/rollups.md#the-refusal)',
    );
    await expect(t.store.transaction((sql) => sql.run('DELETE FROM clicks'))).rejects.toThrow('run() does not write clicks');
    const at = new Date('2026-03-05T10:45:00.000Z');
    await t.store.transaction((sql) =>
      sql.write({ table: 'customers', set: "status = 'conversion', first_purchase_date = $2, first_purchase_day = CAST($2::TIMESTAMP AS DATE)", where: 'id = ANY($1::BIGINT[])' }, [list([1]), at]),
    );
    expect(await t.store.read((sql) => rollupDrift(sql))).toEqual([]);
    await t.store.rollUp();
    const day = await t.store.read((sql) =>
      sql.one("SELECT sum(leads) AS leads, sum(lead_status) AS lead_status, sum(conversions) AS conversions FROM report_rollups WHERE span = 'day' AND program_id = $1", [program.id]),
    );
    expect(day).toEqual({ leads: 1n, lead_status: 0n, conversions: 1n });
    expect(await t.store.read((sql) => rollupDrift(sql))).toEqual([]);
  });
});
