import { describe, expect, test } from 'vitest';
import { ForgetfulCache } from '../../src/domain/store-cache.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('the cache of rows this process writes (programs, API keys)', () => {
  test('a load keeps what it read; forget drops only the matching rows', async () => {
    const cache = new ForgetfulCache<number, string>();
    await cache.load(async () => [[1, 'one'], [2, 'two']]);
    cache.forget((key) => key === 1);
    expect([cache.get(1), cache.get(2)]).toEqual([undefined, 'two']);
  });

  test('a read that started before a change committed does not put the old row back after the change forgot it', async () => {
    const cache = new ForgetfulCache<number, string>();
    const oldRead = deferred<Array<[number, string]>>();
    const loading = cache.load(() => oldRead.promise);
    await cache.changing(async () => 'committed', (key) => key === 1);
    oldRead.resolve([[1, 'old secret']]);
    expect(await loading).toEqual([[1, 'old secret']]); // the caller still gets its answer
    expect(cache.get(1)).toBeUndefined();
    await cache.load(async () => [[1, 'new secret']]);
    expect(cache.get(1)).toBe('new secret');
  });

  test('a change forgets its rows once it settled, also when it failed', async () => {
    const cache = new ForgetfulCache<number, string>();
    await cache.load(async () => [[1, 'one']]);
    const change = deferred<string>();
    const changing = cache.changing(() => change.promise, (key) => key === 1);
    expect(cache.get(1)).toBe('one'); // not before its COMMIT
    change.resolve('done');
    expect(await changing).toBe('done');
    expect(cache.get(1)).toBeUndefined();

    await cache.load(async () => [[1, 'one']]);
    await expect(cache.changing(async () => Promise.reject(new Error('rolled back')), (key) => key === 1)).rejects.toThrow('rolled back');
    expect(cache.get(1)).toBeUndefined();
  });

  test('with maxEntries the oldest entries make room for new ones (the unknown API keys)', async () => {
    const cache = new ForgetfulCache<number, string>(2);
    await cache.load(async () => [[1, 'one'], [2, 'two']]);
    await cache.load(async () => [[3, 'three']]);
    expect([cache.get(1), cache.get(2), cache.get(3)]).toEqual([undefined, 'two', 'three']);
  });
});
