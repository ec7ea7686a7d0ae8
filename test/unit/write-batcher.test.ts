import { describe, expect, onTestFinished, test, vi } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { Deps } from '../../src/domain/deps.js';
import { WriteBatcher, type BatchRun } from '../../src/domain/write-batcher.js';
import type { Sql } from '../../src/store/db.js';
import { DuckDBStore } from '../../src/store/duckdb-store.js';

/** Items are keys inserted into t (primary key); 'refuse' is answered as a refusal without writing. */
type Outcome = { kind: 'stored'; key: string } | { kind: 'refused'; key: string };

async function setup(options: { failFirstRuns?: number } = {}) {
  const statements: string[] = [];
  const store = await DuckDBStore.open(':memory:', { observeWrites: (sql) => statements.push(sql) });
  onTestFinished(() => store.close());
  await store.transaction((sql) => sql.run('CREATE TABLE t (k VARCHAR PRIMARY KEY)'));
  const deps: Deps = { store, clock: systemClock };
  const runs: Array<{ items: string[] } & Pick<BatchRun, 'afterFailure'>> = [];
  let failures = options.failFirstRuns ?? 0;
  const batcher = new WriteBatcher<string, Outcome>(async (_deps, sql: Sql, items, run) => {
    runs.push({ items, afterFailure: run.afterFailure });
    const outcomes = items.map((key): Outcome => (key === 'refuse' ? { kind: 'refused', key } : { kind: 'stored', key }));
    for (const outcome of outcomes) if (outcome.kind === 'stored') await sql.run('INSERT INTO t VALUES ($1)', [outcome.key]);
    if (failures-- > 0) throw new Error('injected failure');
    return outcomes;
  });
  const keys = () => store.read((sql) => sql.all<{ k: string }>('SELECT k FROM t ORDER BY k')).then((rows) => rows.map((r) => r.k));
  const commits = () => statements.filter((s) => s === 'COMMIT').length;
  return { store, deps, batcher, runs, keys, commits, statements };
}

describe('WriteBatcher', () => {
  test('items submitted while the writer is busy are recorded as one batch in one transaction, each caller answered with its outcome', async () => {
    const { deps, batcher, runs, keys, commits } = await setup();
    const before = commits();
    const outcomes = await Promise.all(['a', 'refuse', 'b', 'c'].map((key) => batcher.submit(deps, key)));
    expect(outcomes).toEqual([
      { kind: 'stored', key: 'a' },
      { kind: 'refused', key: 'refuse' },
      { kind: 'stored', key: 'b' },
      { kind: 'stored', key: 'c' },
    ]);
    expect(runs).toEqual([{ items: ['a', 'refuse', 'b', 'c'], afterFailure: false }]);
    expect(commits() - before).toBe(1);
    expect(await keys()).toEqual(['a', 'b', 'c']);
  });

  test('a batch that commits with items waiting opens their transaction with its COMMIT: the next batch sends no BEGIN and sees what it wrote', async () => {
    const { deps, keys, statements } = await setup();
    const seen: string[][] = [];
    let later: Promise<string> | undefined;
    const batcher: WriteBatcher<string, string> = new WriteBatcher(async (_deps, sql, items) => {
      seen.push((await sql.all<{ k: string }>('SELECT k FROM t ORDER BY k')).map((r) => r.k));
      for (const key of items) await sql.run('INSERT INTO t VALUES ($1)', [key]);
      later ??= batcher.submit(deps, 'b'); // arrives while this batch is written
      return items;
    });
    statements.length = 0;
    expect(await batcher.submit(deps, 'a')).toBe('a');
    expect(await later).toBe('b');
    expect(seen).toEqual([[], ['a']]);
    expect(await keys()).toEqual(['a', 'b']);
    expect(statements.filter((s) => /^(BEGIN|COMMIT)/.test(s))).toEqual(['BEGIN TRANSACTION', 'COMMIT; BEGIN TRANSACTION', 'COMMIT']);
  });

  test('a batch that fails is rolled back and run once more with afterFailure; nothing of the failed run stays', async () => {
    const { deps, batcher, runs, keys } = await setup({ failFirstRuns: 1 });
    const outcomes = await Promise.all(['a', 'b'].map((key) => batcher.submit(deps, key)));
    expect(outcomes).toEqual([{ kind: 'stored', key: 'a' }, { kind: 'stored', key: 'b' }]);
    expect(runs).toEqual([
      { items: ['a', 'b'], afterFailure: false },
      { items: ['a', 'b'], afterFailure: true },
    ]);
    expect(await keys()).toEqual(['a', 'b']);
  });

  test('a batch that fails twice runs one item at a time: the item that cannot be written fails alone, its neighbours are recorded', async () => {
    const { store, deps, batcher, runs, keys } = await setup();
    await store.transaction((sql) => sql.run("INSERT INTO t VALUES ('taken')"));
    const results = await Promise.allSettled(['a', 'taken', 'b'].map((key) => batcher.submit(deps, key)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/constraint|duplicate key/i);
    expect(runs).toEqual([
      { items: ['a', 'taken', 'b'], afterFailure: false },
      { items: ['a', 'taken', 'b'], afterFailure: true },
      { items: ['a'], afterFailure: true },
      { items: ['taken'], afterFailure: true },
      { items: ['b'], afterFailure: true },
    ]);
    expect(await keys()).toEqual(['a', 'b', 'taken']);
  });

  test('a single item that fails twice is rejected with the error, after exactly two runs', async () => {
    const { deps, batcher, runs, keys } = await setup({ failFirstRuns: 2 });
    await expect(batcher.submit(deps, 'a')).rejects.toThrow('injected failure');
    expect(runs).toHaveLength(2);
    expect(await keys()).toEqual([]);
    expect(await batcher.submit(deps, 'b')).toEqual({ kind: 'stored', key: 'b' });
  });

  test('items arriving while a batch is being written form the next batch', async () => {
    const { deps, batcher, runs } = await setup();
    const first = batcher.submit(deps, 'a');
    await vi.waitFor(() => expect(runs).toHaveLength(1)); // the first batch has been taken
    const later = ['b', 'c'].map((key) => batcher.submit(deps, key));
    await Promise.all([first, ...later]);
    expect(runs.map((r) => r.items)).toEqual([['a'], ['b', 'c']]);
  });

  test('a batch holds at most 256 items; the rest form the next batch', async () => {
    const { deps, batcher, runs } = await setup();
    const keys = Array.from({ length: 300 }, (_, i) => `k${i}`);
    const outcomes = await Promise.all(keys.map((key) => batcher.submit(deps, key)));
    expect(outcomes.map((o) => o.key)).toEqual(keys);
    expect(runs.map((r) => r.items.length)).toEqual([256, 44]);
  });

  test('on a closed store every waiting caller is rejected, none is left hanging', async () => {
    const { store, deps, batcher } = await setup();
    await store.close();
    const results = await Promise.allSettled(['a', 'b'].map((key) => batcher.submit(deps, key)));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/store is closed/);
  });
});
