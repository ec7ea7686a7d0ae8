import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { AppError } from '../../src/errors.js';
import type { Columns } from '../../src/store/db.js';
import { DuckDBStore, type StoreOptions } from '../../src/store/duckdb-store.js';
import { migrations } from '../../src/store/migrations/index.js';
import { runUnrolled } from '../helpers/engine.js';

/** A database file in a fresh directory, removed when the test finishes. */
function tempFile() {
  const dir = mkdtempSync(join(tmpdir(), 'partnerkit-store-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'partnerkit.duckdb');
}

/** A store closed when the test finishes, also when it fails before its own close (a second close does nothing). */
async function openStore(path: string, options?: StoreOptions): Promise<DuckDBStore> {
  const store = await DuckDBStore.open(path, options);
  onTestFinished(() => store.close());
  return store;
}

describe('migrations', () => {
  test('a new file gets every migration once, recorded in schema_migrations', async () => {
    const store = await openStore(tempFile());
    const applied = await store.read((sql) => sql.all('SELECT version, name FROM schema_migrations ORDER BY version'));
    expect(applied).toEqual(migrations.map((m) => ({ version: m.version, name: m.name })));
    await store.close();
  });

  test('an existing file is migrated forward on open, keeping its data; reopening applies nothing twice', async () => {
    const file = tempFile();
    const v1 = await openStore(file, { migrations: [migrations[0]] });
    await v1.transaction((sql) => sql.run("INSERT INTO partners (id, name, email, created_at) VALUES (1, 'Old', 'old@example.com', TIMESTAMP '2026-01-01')"));
    await v1.close();

    const v2 = { version: 99, name: 'add-partner-note', sql: 'ALTER TABLE partners ADD COLUMN note VARCHAR' };
    const upgraded = await openStore(file, { migrations: [...migrations, v2] });
    expect(await upgraded.read((sql) => sql.all('SELECT id, name, note FROM partners'))).toEqual([{ id: 1, name: 'Old', note: null }]);
    await upgraded.close();

    const reopened = await openStore(file, { migrations: [...migrations, v2] });
    const versions = await reopened.read((sql) => sql.all<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version'));
    expect(versions.map((v) => v.version)).toEqual([...migrations.map((m) => m.version), 99]);
    await reopened.close();
  });

  test('migration 008 gives commissions stored before it the percentage their sale gets: the product rule, else the program rule; flat ones none', async () => {
    const file = tempFile();
    const v7 = await openStore(file, { migrations: migrations.slice(0, 7) });
    await v7.transaction(async (sql) => {
      await sql.run(`INSERT INTO programs (id, name, commission_type, commission_value, attribution_window_days, hold_days, webhook_secret, created_at) VALUES
        (1, 'Percent', 'percent', 2000, 90, 30, 'whsec_a', TIMESTAMP '2026-01-01'), (2, 'Flat', 'flat', 500, 90, 30, 'whsec_b', TIMESTAMP '2026-01-01')`);
      await sql.run(`INSERT INTO product_rules VALUES (1, 'pro', 'percent', 1250, TIMESTAMP '2026-01-01'), (1, 'ebook', 'flat', 300, TIMESTAMP '2026-01-01')`);
      await runUnrolled(sql, `INSERT INTO sale_events (id, program_id, customer_id, partner_program_id, transaction_id, amount_cents, currency, sale_type, is_recurring,
          product_id, source, status, received_at, paid_day) VALUES
        (1, 1, 1, 1, 'a', 1000, 'USD', 'payment', false, NULL, 'api', 'paid', TIMESTAMP '2026-01-02', DATE '2026-01-02'),
        (2, 1, 1, 1, 'b', 1000, 'USD', 'payment', false, 'pro', 'api', 'paid', TIMESTAMP '2026-01-02', DATE '2026-01-02'),
        (3, 1, 1, 1, 'c', 1000, 'USD', 'payment', false, 'ebook', 'api', 'paid', TIMESTAMP '2026-01-02', DATE '2026-01-02'),
        (4, 2, 2, 2, 'd', 1000, 'USD', 'payment', false, NULL, 'api', 'paid', TIMESTAMP '2026-01-02', DATE '2026-01-02')`);
      await runUnrolled(sql, `INSERT INTO commissions (id, program_id, sale_id, partner_program_id, amount_cents, currency, status, hold_until, created_at, day)
        SELECT id, program_id, id, 1, 100, 'USD', 'pending', TIMESTAMP '2026-02-01', TIMESTAMP '2026-01-02', DATE '2026-01-02' FROM sale_events`);
    });
    await v7.close();
    const v8 = await openStore(file);
    const rules = await v8.read((sql) => sql.all('SELECT sale_id, percent_bp FROM commissions ORDER BY sale_id'));
    expect(rules).toEqual([{ sale_id: 1, percent_bp: 2000 }, { sale_id: 2, percent_bp: 1250 }, { sale_id: 3, percent_bp: null }, { sale_id: 4, percent_bp: null }]);
    await v8.close();
  });

  test('migration 024 keeps every outbox row and column, and takes only the primary keys off the three growing outbox tables', async () => {
    const file = tempFile();
    const v23 = await openStore(file, { migrations: migrations.slice(0, -1) });
    expect(migrations.at(-1)!.version).toBe(24);
    await v23.transaction(async (sql) => {
      await sql.run(`INSERT INTO outbox_messages VALUES
        (2, 'webhook', 1, 'sale.created', 'evt_b', '{"b":1}', TIMESTAMP '2026-03-01 10:00', '5,6'),
        (1, 'mail', 1, 'payout.paid', 'evt_a', '{"a":1}', TIMESTAMP '2026-03-01 09:00', NULL)`);
      await sql.run(`INSERT INTO outbox_deliveries VALUES
        (1, 1, 'mail', 0, 'delivered', 1, NULL, NULL, NULL, TIMESTAMP '2026-03-01 09:00'),
        (2, 2, 'webhook', 5, 'pending', 2, TIMESTAMP '2026-03-01 11:00', 'owner', TIMESTAMP '2026-03-01 10:01', TIMESTAMP '2026-03-01 10:00')`);
      await sql.run(`INSERT INTO outbox_attempts VALUES (1, 2, TIMESTAMP '2026-03-01 10:00', 503, NULL, 12, 'busy'), (2, 2, TIMESTAMP '2026-03-01 10:05', NULL, 'reset', 3, NULL)`);
    });
    const keyed = "SELECT table_name FROM duckdb_constraints() WHERE table_name LIKE 'outbox_%' AND constraint_type = 'PRIMARY KEY' ORDER BY table_name";
    const before = await v23.read(async (sql) => ({
      messages: await sql.all('SELECT * FROM outbox_messages ORDER BY id'),
      deliveries: await sql.all('SELECT * FROM outbox_deliveries ORDER BY id'),
      attempts: await sql.all('SELECT * FROM outbox_attempts ORDER BY id'),
      keys: await sql.all(keyed),
    }));
    await v23.close();
    expect(before.keys).toEqual([{ table_name: 'outbox_attempts' }, { table_name: 'outbox_deliveries' }, { table_name: 'outbox_messages' }]);
    const v24 = await openStore(file);
    const after = await v24.read(async (sql) => ({
      messages: await sql.all('SELECT * FROM outbox_messages'),
      deliveries: await sql.all('SELECT * FROM outbox_deliveries'),
      attempts: await sql.all('SELECT * FROM outbox_attempts'),
      keys: await sql.all(keyed),
      checks: await sql.all("SELECT table_name FROM duckdb_constraints() WHERE table_name LIKE 'outbox_%' AND constraint_type = 'CHECK'"),
    }));
    // Stored in id order, the rows come back as they were, the check on a delivery's status kept.
    expect(after).toEqual({ ...before, keys: [], checks: [{ table_name: 'outbox_deliveries' }] });
    await expect(v24.transaction((sql) => sql.run("UPDATE outbox_deliveries SET status = 'lost' WHERE id = 1"))).rejects.toThrow(/CHECK constraint/i);
  });

  test('migration 003 takes the report day off test clicks stored before it, and only theirs', async () => {
    const file = tempFile();
    const v2 = await openStore(file, { migrations: migrations.slice(0, 2) });
    await v2.transaction((sql) =>
      runUnrolled(sql, `INSERT INTO clicks (id, click_id, program_id, partner_program_id, is_test, created_at, day) VALUES
        (1, 'ck_1_a', 1, 1, false, TIMESTAMP '2026-03-01 10:00', DATE '2026-03-01'),
        (2, 'ck_2_b', 1, 1, true, TIMESTAMP '2026-03-01 11:00', DATE '2026-03-01')`),
    );
    await v2.close();
    const v3 = await openStore(file);
    const days = await v3.read((sql) => sql.all<{ id: number; day: string | null }>("SELECT id, strftime(day, '%Y-%m-%d') AS day FROM clicks ORDER BY id"));
    expect(days).toEqual([{ id: 1, day: '2026-03-01' }, { id: 2, day: null }]);
    await v3.close();
  });

  test('migration 004 gives customers stored before it the click id value of their click; a customer without a click keeps none', async () => {
    const file = tempFile();
    const v3 = await openStore(file, { migrations: migrations.slice(0, 3) });
    await v3.transaction((sql) =>
      runUnrolled(sql, `INSERT INTO clicks (id, click_id, program_id, partner_program_id, is_test, created_at, day) VALUES
          (7, 'ck_7_secret', 1, 1, false, TIMESTAMP '2026-03-01 10:00', DATE '2026-03-01');
        INSERT INTO customers (id, customer_ref, program_id, customer_key, click_id, partner_program_id, signup_date, attributed_from, status, signup_day) VALUES
          (1, '1:a', 1, 'a', 7, 1, TIMESTAMP '2026-03-01 11:00', TIMESTAMP '2026-03-01 10:00', 'lead', DATE '2026-03-01'),
          (2, '1:b', 1, 'b', NULL, 1, TIMESTAMP '2026-03-01 12:00', TIMESTAMP '2026-03-01 12:00', 'lead', DATE '2026-03-01')`),
    );
    await v3.close();
    const v4 = await openStore(file);
    const refs = await v4.read((sql) => sql.all('SELECT id, click_ref FROM customers ORDER BY id'));
    expect(refs).toEqual([{ id: 1, click_ref: 'ck_7_secret' }, { id: 2, click_ref: null }]);
    await v4.close();
  });

  test('a failing migration leaves the file at the previous version', async () => {
    const file = tempFile();
    await (await openStore(file)).close();
    const broken = { version: 99, name: 'broken', sql: 'ALTER TABLE nope ADD COLUMN x INT' };
    await expect(DuckDBStore.open(file, { migrations: [...migrations, broken] })).rejects.toThrow(/migration 99 \(broken\) failed/);
    const store = await openStore(file);
    expect((await store.read((sql) => sql.one<{ v: number }>('SELECT max(version) AS v FROM schema_migrations')))!.v).toBe(migrations.at(-1)!.version);
    await store.close();
  });
});

describe('transactions on the writer connection', () => {
  test('a transaction failing at the SQL level does not take the transactions queued beside it down', async () => {
    const store = await openStore(':memory:');
    await store.transaction((sql) => sql.run('CREATE TABLE t (k VARCHAR PRIMARY KEY)'));
    const results = await Promise.allSettled([
      store.transaction((sql) => sql.run("INSERT INTO t VALUES ('a')")),
      store.transaction((sql) => sql.run("INSERT INTO t VALUES ('a')")), // duplicate key of a neighbouring transaction
      store.transaction((sql) => sql.run("INSERT INTO t VALUES ('b')")),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await store.read((sql) => sql.all('SELECT k FROM t ORDER BY k'))).toEqual([{ k: 'a' }, { k: 'b' }]);
    await store.close();
  });

  test('an error thrown before writing rejects only its own transaction', async () => {
    const store = await openStore(':memory:');
    await store.transaction((sql) => sql.run('CREATE TABLE t (k VARCHAR PRIMARY KEY)'));
    const results = await Promise.allSettled([
      store.transaction((sql) => sql.run("INSERT INTO t VALUES ('a')")),
      store.transaction(async () => {
        throw new AppError('conflict', 'no');
      }),
      store.transaction((sql) => sql.run("INSERT INTO t VALUES ('b')")),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(AppError);
    expect(await store.read((sql) => sql.all('SELECT k FROM t ORDER BY k'))).toEqual([{ k: 'a' }, { k: 'b' }]);
    await store.close();
  });

  test('a transaction that throws after writing leaves none of its writes behind', async () => {
    const store = await openStore(':memory:');
    await store.transaction((sql) => sql.run('CREATE TABLE t (k VARCHAR)'));
    const results = await Promise.allSettled([
      store.transaction((sql) => sql.run("INSERT INTO t VALUES ('kept')")),
      store.transaction(async (sql) => {
        await sql.run("INSERT INTO t VALUES ('half')");
        throw new AppError('conflict', 'changed my mind');
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected']);
    expect(await store.read((sql) => sql.all('SELECT k FROM t'))).toEqual([{ k: 'kept' }]);
    await store.close();
  });

  test('a COMMIT with another transaction waiting opens it: that one sends no BEGIN and sees what the last wrote; one opened for nothing is rolled back before a snapshot', async () => {
    const file = tempFile();
    const statements: string[] = [];
    const store = await openStore(file, { observeWrites: (sql) => statements.push(sql) });
    await store.transaction((sql) => sql.run('CREATE TABLE t (k VARCHAR)'));
    statements.length = 0;
    const [, seen] = await Promise.all([
      store.transaction((sql) => sql.run("INSERT INTO t VALUES ('a')")),
      store.transaction((sql) => sql.all<{ k: string }>('SELECT k FROM t')),
    ]);
    expect(seen).toEqual([{ k: 'a' }]);
    // Its caller says another follows, and none does: the backup's CHECKPOINT finds no transaction open.
    await store.transaction((sql) => sql.run("INSERT INTO t VALUES ('b')"), { moreToCome: () => true });
    await store.snapshot(`${file}.copy`);
    await store.transaction((sql) => sql.run("INSERT INTO t VALUES ('c')"));
    expect(statements.filter((s) => /^(BEGIN|COMMIT|ROLLBACK|CHECKPOINT)/.test(s))).toEqual([
      'BEGIN TRANSACTION', 'COMMIT; BEGIN TRANSACTION', 'COMMIT',
      'BEGIN TRANSACTION', 'COMMIT; BEGIN TRANSACTION', 'ROLLBACK', 'CHECKPOINT',
      'BEGIN TRANSACTION', 'COMMIT',
    ]);
    const copy = await openStore(`${file}.copy`);
    expect(await copy.read((sql) => sql.all('SELECT k FROM t ORDER BY k'))).toEqual([{ k: 'a' }, { k: 'b' }]);
    await copy.close();
    // At close the roll-up runs in the transaction left open: every row committed is in the file.
    await store.transaction((sql) => sql.run("INSERT INTO t VALUES ('d')"), { moreToCome: () => true });
    await store.close();
    const reopened = await openStore(file);
    expect(await reopened.read((sql) => sql.all('SELECT k FROM t ORDER BY k'))).toEqual([{ k: 'a' }, { k: 'b' }, { k: 'c' }, { k: 'd' }]);
    await reopened.close();
  });

  test('close waits for queued writes and persists them', async () => {
    const file = tempFile();
    const store = await openStore(file);
    const writes = Array.from({ length: 50 }, (_, i) =>
      store.transaction((sql) => sql.run('INSERT INTO partners (id, name, email, created_at) VALUES ($1, $2, $3, $4)', [i + 1, 'P', `p${i}@example.com`, new Date()])),
    );
    await store.close();
    await Promise.all(writes);
    const reopened = await openStore(file);
    expect((await reopened.read((sql) => sql.one<{ n: number }>('SELECT count(*) AS n FROM partners')))!.n).toBe(50);
    await reopened.close();
  });
});

describe('appending rows', () => {
  type Ledger = { txn_key: string; program_id: number; mode: string; transaction_id: string; sale_id: number | null; created_at: Date };
  const LEDGER: Columns<Ledger> = [
    ['txn_key', 'VARCHAR'], ['program_id', 'BIGINT'], ['mode', 'VARCHAR'], ['transaction_id', 'VARCHAR'], ['sale_id', 'BIGINT'], ['created_at', 'TIMESTAMP'],
  ];
  const entry = (key: string): Ledger => ({ txn_key: key, program_id: 1, mode: 'live', transaction_id: key, sale_id: null, created_at: new Date('2026-03-01T10:00:00Z') });
  const keys = (store: DuckDBStore) => store.read((sql) => sql.all<{ txn_key: string }>('SELECT txn_key FROM sale_transactions ORDER BY txn_key')).then((rows) => rows.map((r) => r.txn_key));

  test('appended rows commit with their transaction, values as given (NULL, BIGINT, TIMESTAMP)', async () => {
    const store = await openStore(tempFile());
    await store.transaction((sql) => sql.append('sale_transactions', LEDGER, [entry('a'), { ...entry('b'), sale_id: 2 ** 40 }]));
    const rows = await store.read((sql) => sql.all('SELECT txn_key, sale_id, created_at FROM sale_transactions ORDER BY txn_key'));
    expect(rows).toEqual([
      { txn_key: 'a', sale_id: null, created_at: new Date('2026-03-01T10:00:00Z') },
      { txn_key: 'b', sale_id: 2 ** 40, created_at: new Date('2026-03-01T10:00:00Z') },
    ]);
    await store.close();
  });

  test('a key violation at the append fails its transaction alone and leaves none of its rows; queued neighbours commit', async () => {
    const store = await openStore(tempFile());
    await store.transaction((sql) => sql.append('sale_transactions', LEDGER, [entry('a')]));
    const results = await Promise.allSettled([
      store.transaction((sql) => sql.append('sale_transactions', LEDGER, [entry('b')])),
      store.transaction((sql) => sql.append('sale_transactions', LEDGER, [entry('c'), entry('a')])),
      store.transaction((sql) => sql.append('sale_transactions', LEDGER, [entry('d')])),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/primary key/i);
    expect(await keys(store)).toEqual(['a', 'b', 'd']);
    await store.close();
  });

  test("columns that are not the table's, in its order, are refused before anything is written", async () => {
    const store = await openStore(tempFile());
    const swapped: Columns<Ledger> = [LEDGER[1], LEDGER[0], ...LEDGER.slice(2)];
    await expect(store.transaction((sql) => sql.append('sale_transactions', swapped, [entry('a')]))).rejects.toThrow(
      'append to sale_transactions: columns (program_id BIGINT, txn_key VARCHAR, mode VARCHAR, transaction_id VARCHAR, sale_id BIGINT, created_at TIMESTAMP) are not the table\'s (txn_key VARCHAR, program_id BIGINT, mode VARCHAR, transaction_id VARCHAR, sale_id BIGINT, created_at TIMESTAMP)',
    );
    expect(await keys(store)).toEqual([]);
    await store.close();
  });
});
