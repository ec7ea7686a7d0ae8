import { describe, expect, test } from 'vitest';
import { buildTestApp } from '../helpers/app.js';

/** Sql.afterCommit on the engine under test: an effect runs once its transaction committed, never after a rollback. */
describe('effects after commit', () => {
  test('run in order once the transaction committed, after its last statement; a rolled-back transaction drops its own only', async () => {
    const t = await buildTestApp();
    const seen: string[] = [];
    const committed = t.store.transaction(async (sql) => {
      sql.afterCommit(() => seen.push('first'));
      await sql.run("INSERT INTO partners (id, name, email, created_at) VALUES (900, 'Effect', 'effect@example.com', TIMESTAMP '2026-01-01')");
      sql.afterCommit(() => seen.push('second'));
      expect(seen).toEqual([]);
      return 'done';
    });
    const failed = t.store.transaction(async (sql) => {
      sql.afterCommit(() => seen.push('rolled back'));
      throw new Error('no');
    });
    expect(await committed).toBe('done');
    await expect(failed).rejects.toThrow('no');
    await t.store.transaction(async (sql) => sql.afterCommit(() => seen.push('third')));
    expect(seen).toEqual(['first', 'second', 'third']);
    expect(await t.count('partners', 'id = 900')).toBe(1);
  });
});
