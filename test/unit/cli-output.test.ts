import { afterEach, describe, expect, test } from 'vitest';
import { commissionText, formatCents, formatCount, formatMoney, formatWhen, renderTable, truncateMiddle } from '../../src/cli/output.js';

describe('numbers in tables (docs/cli.md#tables-and-numbers)', () => {
  test.each([
    [11_231_798, '11,231,798.00'],
    [4907, '4,907.00'],
    [981.4, '981.40'],
    [0, '0.00'],
    [0.5, '0.50'],
    [-1234.5, '-1,234.50'],
    // Beyond 2^53 cents the report's JSON number keeps about 16 digits (docs/reports.md#rounding).
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

describe('tables within 80 columns (docs/cli.md#tables-and-numbers)', () => {
  type Row = { name: string; amount: string; type: string };
  const columns = [
    { header: 'name', value: (r: Row) => r.name, shrink: 'end' as const },
    { header: 'type', value: (r: Row) => r.type, shrink: 'middle' as const },
    { header: 'amount', value: (r: Row) => r.amount, align: 'right' as const },
  ];

  test('columns as wide as their cells, two spaces apart, the header underlined, no trailing spaces', () => {
    expect(renderTable(columns, [{ name: 'Ada', type: 'sale', amount: '1.00 USD' }, { name: 'Bo', type: 'clawback', amount: '-12.50 USD' }], { empty: '' }))
      .toBe(['name  type          amount', '────  ────────  ──────────', 'Ada   sale        1.00 USD', 'Bo    clawback  -12.50 USD'].join('\n'));
  });

  test('too wide: the shrinking columns give up width, the widest first; names cut at the end, types in the middle; amounts whole', () => {
    const row = { name: 'Maximilian Alexander Featherstonehaugh-Cholmondeley of Northwind Traders', type: 'checkout.session.async_payment_succeeded', amount: '123,456.78 USD' };
    const lines = renderTable(columns, [row], { empty: '' }).split('\n');
    expect(lines.map((line) => line.length)).toEqual([80, 80, 80]);
    expect(lines[2]).toBe('Maximilian Alexander Featherst…  checkout.sessio…yment_succeeded  123,456.78 USD');
  });

  test('no rows: the sentence instead of a table', () => {
    expect(renderTable(columns, [], { empty: 'No payouts yet.' })).toBe('No payouts yet.');
  });

  test('no JSON in a cell: lists comma-separated, none as —', () => {
    const list = [{ header: 'ids', value: (r: { ids: number[] }) => r.ids }];
    expect(renderTable(list, [{ ids: [1, 2] }, { ids: [] }], { empty: '' }).split('\n').slice(2)).toEqual(['1, 2', '—']);
  });

  test('commission rules in words', () => {
    expect(commissionText({ type: 'percent', percent: 12.5 })).toBe('12.5 %');
    expect(commissionText({ type: 'flat', flatCents: 123_456 })).toBe('1,234.56 per sale');
  });
});

describe("times in the terminal's time zone", () => {
  const zone = process.env.TZ;
  afterEach(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  test.each([
    ['America/New_York', '2026-11-26T19:05:00.000Z', 'Nov 26 14:05'],
    ['Asia/Tokyo', '2026-11-26T19:05:00.000Z', 'Nov 27 04:05'],
    ['America/New_York', '2026-01-01T03:00:00.000Z', '2025-12-31'], // still 2025 there: another year, the date alone
  ])('%s: %s, seen in 2026, reads as %s', (tz, iso, shown) => {
    process.env.TZ = tz;
    expect(formatWhen(iso, new Date('2026-11-26T20:00:00.000Z'))).toBe(shown);
  });
});
