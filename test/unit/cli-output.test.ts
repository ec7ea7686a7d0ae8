import { describe, expect, test } from 'vitest';
import { formatCents, formatCount, formatMoney, truncateMiddle } from '../../src/cli/output.js';

describe('numbers in tables (docs/behaviour.md §9.7)', () => {
  test.each([
    [11_231_798, '11,231,798.00'],
    [4907, '4,907.00'],
    [981.4, '981.40'],
    [0, '0.00'],
    [0.5, '0.50'],
    [-1234.5, '-1,234.50'],
    // Beyond 2^53 cents the report's JSON number keeps about 16 digits (docs/behaviour.md §5.9).
    [92_774_152_323_832_210, '92,774,152,323,832,210.00'],
  ])('money %s → %s', (dollars, shown) => {
    expect(formatMoney(dollars)).toBe(shown);
  });

  test.each([
    [17_935, '17,935'],
    [999, '999'],
    [10_000_000, '10,000,000'],
  ])('count %s → %s', (n, shown) => {
    expect(formatCount(n)).toBe(shown);
  });

  test.each<[number | bigint, string]>([
    [123_456_789, '1,234,567.89'],
    [100_000, '1,000.00'],
    [99_999, '999.99'],
    [5, '0.05'],
    [-1_234_567, '-12,345.67'],
    [12_345_678_901_234_567_890n, '123,456,789,012,345,678.90'],
  ])('cents %s → %s (payout tables: exact at any size)', (cents, shown) => {
    expect(formatCents(cents)).toBe(shown);
  });
});

describe('long ids in tables', () => {
  test('an id over the width keeps its start and its end around an ellipsis', () => {
    const id = `evt_${'a'.repeat(30)}${'0123456789'}`;
    const shown = truncateMiddle(id, 40);
    expect(shown).toHaveLength(40);
    expect(shown).toBe(`evt_${'a'.repeat(16)}…${'a'.repeat(9)}0123456789`);
  });

  test('an id within the width is shown whole', () => {
    expect(truncateMiddle('evt_1NG8Du2eZvKYlo2CUI1ABCDE', 40)).toBe('evt_1NG8Du2eZvKYlo2CUI1ABCDE');
    expect(truncateMiddle('checkout.session.async_payment_succeeded', 40)).toBe('checkout.session.async_payment_succeeded');
  });
});
