import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve, summarize, tempDir, type Summary } from './lib.js';
import { BULK_WRITER, rollUpStored } from '../src/store/rollups.js';
import { DuckDBStore } from '../src/store/duckdb-store.js';

/** The instant the payouts are created at: every generated commission's hold is over by then. */
const NOW = '2026-03-10T15:00:00.000Z';

export type PayoutShape = { commissions: number; partners: number };
export type PayoutFigures = { create: Summary; rawUpdate: Summary; payouts: number; commissions: number };

/**
 * One program whose `commissions` commissions, spread over `partners` partners, are all past their
 * hold (stored pending, read approved under automatic approval): generated in SQL, in one transaction.
 */
async function generateCommissions(file: string, { commissions, partners }: PayoutShape): Promise<void> {
  const store = await DuckDBStore.open(file);
  const connection = await store.bulkConnection();
  try {
    const run = (sql: string, params: Array<number | bigint | string> = []) => connection.run(sql, params);
    const heldUntil = `TIMESTAMP '${NOW.slice(0, 10)}' - INTERVAL 1 DAY`;
    await run('BEGIN TRANSACTION');
    await run(
      `INSERT INTO programs (id, name, commission_type, commission_value, attribution_window_days, hold_days, recurring_months, webhook_secret, created_at, approval, min_payout_cents)
       VALUES (1, 'Payout bench', 'percent', 2000, 90, 30, NULL, 'whsec_generated', ${heldUntil} - INTERVAL 60 DAY, 'auto', 0)`,
    );
    await run(`INSERT INTO partners (id, name, email, created_at) SELECT i, 'P' || i, 'p' || i || '@example.com', ${heldUntil} - INTERVAL 60 DAY FROM range(1, $1::BIGINT + 1) r(i)`, [
      BigInt(partners),
    ]);
    await run(`INSERT INTO partner_programs SELECT i, i, 1, 'ref' || i, 'active', ${heldUntil} - INTERVAL 60 DAY FROM range(1, $1::BIGINT + 1) r(i)`, [BigInt(partners)]);
    await run(
      `INSERT INTO commissions (id, program_id, sale_id, partner_program_id, amount_cents, currency, status, hold_until, created_at, day, type)
       SELECT i, 1, i, 1 + i % $2::BIGINT, 500 + i % 1000, 'USD', 'pending', ${heldUntil} - INTERVAL (i % 20) DAY,
         ${heldUntil} - INTERVAL 30 DAY, CAST(${heldUntil} - INTERVAL 30 DAY AS DATE), 'sale'
       FROM range(1, $1::BIGINT + 1) r(i)`,
      [BigInt(commissions), BigInt(partners)],
    );
    await run(rollUpStored('program_id = 1', String(BULK_WRITER)));
    await run('COMMIT');
    await run('CHECKPOINT');
  } finally {
    connection.closeSync();
    await store.close();
  }
}

/** A fresh copy of the generated file in a data dir of its own. */
function copyOf(template: string) {
  const dir = tempDir('payout-run');
  copyFileSync(template, join(dir.path, 'partnerkit.duckdb'));
  return dir;
}

/**
 * `payout create` over HTTP on a running server (the POST's wall time), each run on a fresh copy of
 * the same data, beside its ceiling: the one UPDATE that moves the same commissions to processing,
 * run alone (with its rollups, as every write of commissions) on another copy in this process.
 */
export async function benchPayouts(shape: PayoutShape = { commissions: 100_000, partners: 1000 }, runs = 3): Promise<PayoutFigures> {
  const template = tempDir('payout-template');
  const file = join(template.path, 'partnerkit.duckdb');
  await generateCommissions(file, shape);
  const create: number[] = [];
  const rawUpdate: number[] = [];
  let payouts = 0;
  let taken = 0;
  try {
    for (let i = 0; i < runs; i++) {
      const dir = copyOf(file);
      const server = await serve(dir.path, [], { PARTNERKIT_NOW: NOW });
      try {
        const token = readFileSync(join(dir.path, 'admin-token'), 'utf8').trim();
        const started = performance.now();
        const response = await fetch(`${server.url}/api/programs/1/payouts`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
        const body = (await response.json()) as { payouts: Array<{ commissionIds: number[] }> };
        create.push((performance.now() - started) / 1000);
        if (!response.ok) throw new Error(`payout create → ${response.status} ${JSON.stringify(body)}`);
        payouts = body.payouts.length;
        taken = body.payouts.reduce((n, p) => n + p.commissionIds.length, 0);
      } finally {
        await server.stop();
        dir.remove();
      }

      const raw = copyOf(file);
      const store = await DuckDBStore.open(join(raw.path, 'partnerkit.duckdb'));
      try {
        const started = performance.now();
        await store.transaction((sql) =>
          sql.write(
            { table: 'commissions', set: "status = 'processing', payout_id = partner_program_id", where: "program_id = 1 AND status = 'pending' AND hold_until <= $1" },
            [new Date(NOW)],
          ),
        );
        rawUpdate.push((performance.now() - started) / 1000);
      } finally {
        await store.close();
        raw.remove();
      }
    }
  } finally {
    template.remove();
  }
  return { create: summarize(create), rawUpdate: summarize(rawUpdate), payouts, commissions: taken };
}
