import { describe, expect, test } from 'vitest';
import { dollars, reportWindow, requestedRange, roundedRatio, trend } from '../../src/domain/performance.js';
import { AppError } from '../../src/errors.js';

describe('roundedRatio and dollars', () => {
  test.each([
    [1, 8, 2, 0.13], // 0.125 → half away from zero
    [-1, 8, 2, -0.13],
    [1, 3, 2, 0.33],
    [2, 3, 1, 0.7],
    [1005, 1000, 2, 1.01], // 1.005 is 1.00499… as a double; integer arithmetic rounds it up
    [22499, 300, 2, 75],
  ])('%i / %i to %i decimals is %d', (n, d, decimals, expected) => {
    expect(roundedRatio(n, d, decimals)).toBe(expected);
  });

  test.each([
    [0n, 0],
    [1n, 0.01],
    [4999n, 49.99],
    [-250n, -2.5],
    [-1n, -0.01],
    [123_456_789_012n, 1_234_567_890.12],
    [9_007_199_254_740_991n, 90_071_992_547_409.91], // the largest amount a sale may have: still exact to the cent
  ])('%i cents are %d dollars', (cents, expected) => {
    expect(dollars(cents)).toBe(expected);
  });

  test.each([
    // Beyond 2^53 cents a double cannot hold every cent: the answer is the double nearest to the exact dollars.
    [9_277_415_232_383_220_730n, '92774152323832207.30'],
    [2n ** 64n + 5n, '184467440737095516.21'],
    [-(2n ** 70n) - 1n, '-11805916207174113034.25'],
  ])('%i cents are the double nearest to %s dollars', (cents, exact) => {
    expect(dollars(cents)).toBe(Number(exact));
  });

  test('a ratio of sums beyond 2^53 is still rounded exactly: 10^20 + 1 over 10^20 is 1.00 at two decimals, 1.0000000000 at ten', () => {
    expect(roundedRatio(10n ** 20n + 1n, 10n ** 20n, 2)).toBe(1);
    expect(roundedRatio(3n * 10n ** 20n + 10n ** 18n * 5n, 10n ** 20n, 1)).toBe(3.1); // 3.05 rounds half away from zero
  });
});

describe('trend', () => {
  test.each([
    [6, 4, { trend: 50, trendDirection: 'up' }],
    [6, 8, { trend: 25, trendDirection: 'down' }],
    [1, 3, { trend: 66.7, trendDirection: 'down' }],
    [5, 5, { trend: 0, trendDirection: 'stable' }],
    [7, 0, { trend: 100, trendDirection: 'up' }], // previous 0
    [0, 0, { trend: 0, trendDirection: 'stable' }], // both 0
    [0, 9, { trend: 100, trendDirection: 'down' }],
    [10_001, 10_000, { trend: 0, trendDirection: 'up' }], // direction by sign even when it rounds to 0.0
    [3n * 2n ** 60n, 2n ** 61n, { trend: 50, trendDirection: 'up' }], // cents beyond 2^53
    [2n ** 62n + 1n, 2n ** 62n, { trend: 0, trendDirection: 'up' }], // a difference a double would lose
  ])('%i versus %i', (current, previous, expected) => {
    expect(trend(current, previous)).toEqual(expected);
  });
});

describe('requestedRange and reportWindow', () => {
  const now = new Date('2026-03-10T15:00:00.000Z');
  const created = new Date('2026-02-20T09:00:00.000Z');
  const iso = (w: ReturnType<typeof reportWindow>) => [w.period, w.from, w.to, w.previousFrom, w.previousTo].map((x) => (x instanceof Date ? x.toISOString() : x));

  test('defaults to 7d', () => {
    expect(iso(reportWindow(requestedRange({}), now, created))).toEqual([
      '7d', '2026-03-04T00:00:00.000Z', '2026-03-10T23:59:59.999Z', '2026-02-25T00:00:00.000Z', '2026-03-03T23:59:59.999Z',
    ]);
  });

  test('a date-time without an offset is UTC; one with an offset is converted', () => {
    expect(iso(reportWindow(requestedRange({ dateFrom: '2026-03-01T10:00', dateTo: '2026-03-01T12:00:00+02:00' }), now, created))).toEqual([
      'custom', '2026-03-01T10:00:00.000Z', '2026-03-01T10:00:00.000Z', '2026-03-01T09:59:59.999Z', '2026-03-01T09:59:59.999Z',
    ]);
  });

  test('custom dates win over period', () => {
    expect(requestedRange({ period: '90d', dateFrom: '2026-03-01', dateTo: '2026-03-01' }).period).toBe('custom');
  });

  test.each([
    [{ dateFrom: '2026-03-01' }, 'dateTo'],
    [{ dateTo: '2026-03-01' }, 'dateFrom'],
    [{ dateFrom: '2026-03-02', dateTo: '2026-03-01' }, 'dateFrom'],
    [{ dateFrom: '2026-03-01T00:00:00.001Z', dateTo: '2026-03-01T00:00:00Z' }, 'dateFrom'],
  ])('%j is invalid_request on %s', (query, field) => {
    try {
      requestedRange(query);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe('invalid_request');
      expect((error as AppError).details).toEqual({ fields: [expect.objectContaining({ field })] });
    }
  });
});
