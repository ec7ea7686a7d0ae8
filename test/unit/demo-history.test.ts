import { afterEach, describe, expect, test, vi } from 'vitest';
import type { DemoOptions } from '../../src/api/index.js';
import { demoHistory, historyStart, type DemoFrame, type DemoSources } from '../../src/domain/demo-history.js';
import type { BulkRows } from '../../src/store/demo-loader.js';

const DAY_MS = 86_400_000;
const NOW = Date.parse('2026-03-15T13:45:10.000Z');
const OPTIONS: DemoOptions = { days: 60, clicks: 12_000, seed: 7 };
const FRAME: DemoFrame = { programId: 4, firstDay: historyStart(NOW, OPTIONS.days), now: NOW };
// Columns holding instants of the history itself; hold_until lies after it by design.
const INSTANTS = ['created_at', 'day', 'signup_date', 'first_purchase_date', 'attributed_from', 'signup_day', 'first_purchase_day', 'received_at', 'paid_day'];

/** Runs a history to its end, answering its id requests as a store would (tables already holding rows), with numbered referral codes. */
function generate(options = OPTIONS, frame = FRAME) {
  const next: Record<string, number> = { partners: 11, partner_programs: 21, clicks: 1001, customers: 501, sale_events: 301, commissions: 201 };
  const reserved: Array<{ table: string; first: number; count: number }> = [];
  let codes = 0;
  const sources: DemoSources = { refCode: () => `code${++codes}` };
  const parts: BulkRows[] = [];
  const history = demoHistory(options, frame, sources);
  for (let step = history.next(); ; ) {
    if (step.done) return { parts, counts: step.value, reserved };
    if ('reserve' in step.value) {
      const { reserve: table, count } = step.value;
      const first = next[table];
      next[table] += count;
      reserved.push({ table, first, count });
      step = history.next(first);
      continue;
    }
    parts.push(step.value);
    step = history.next();
  }
}

/** One table's parts as row objects, in the order they are appended. */
function rows(parts: BulkRows[], table: string): Array<Record<string, unknown>> {
  return parts
    .filter((part) => part.table === table)
    .flatMap(({ columns, rowCount }) =>
      Array.from({ length: rowCount }, (_, i) => Object.fromEntries(Object.entries(columns).map(([name, values]) => [name, values[i]]))),
    );
}

const range = (first: number, count: number) => Array.from({ length: count }, (_, i) => first + i);

describe('demoHistory (the demo loader’s generator)', () => {
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  test('the same options and frame give the same parts, whatever the system clock and Math.random say', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse('2020-01-01T00:00:00Z'));
    vi.spyOn(Math, 'random').mockReturnValue(0.1);
    const first = generate();
    vi.setSystemTime(Date.parse('2031-06-30T12:00:00Z'));
    vi.spyOn(Math, 'random').mockReturnValue(0.9);
    const second = generate();
    expect(second.parts).toHaveLength(first.parts.length);
    first.parts.forEach((part, i) => expect(second.parts[i]).toEqual(part));
    expect(second.counts).toEqual(first.counts);
    expect(second.reserved).toEqual(first.reserved);
  });

  test('another seed gives another history', () => {
    const first = generate();
    const other = generate({ ...OPTIONS, seed: OPTIONS.seed + 1 });
    expect(other.counts.clicks).toBe(first.counts.clicks);
    expect(rows(other.parts, 'clicks').map((c) => c.click_id)).not.toEqual(rows(first.parts, 'clicks').map((c) => c.click_id));
    expect(other.parts).not.toEqual(first.parts);
  });

  test('parts come table by table, the clicks one day at a time, and the counts add up', () => {
    const { parts, counts } = generate();
    expect(parts.map((p) => p.table)).toEqual([
      'partners',
      'partner_programs',
      ...Array<string>(OPTIONS.days).fill('clicks'),
      'customers',
      'sale_events',
      'sale_transactions',
      'commissions',
    ]);
    for (const { columns, rowCount } of parts) for (const values of Object.values(columns)) expect(values).toHaveLength(rowCount);
    const customers = rows(parts, 'customers');
    const sales = rows(parts, 'sale_events');
    expect(counts.clicks).toBe(OPTIONS.clicks);
    expect(rows(parts, 'clicks')).toHaveLength(counts.clicks);
    expect(rows(parts, 'partners')).toHaveLength(counts.partners);
    expect(customers).toHaveLength(counts.leads);
    expect(customers.filter((c) => c.status === 'conversion')).toHaveLength(counts.conversions);
    expect(sales.filter((s) => s.is_recurring)).toHaveLength(counts.renewals);
    expect(sales).toHaveLength(counts.sales);
    expect(rows(parts, 'sale_transactions')).toHaveLength(counts.sales);
    expect(rows(parts, 'commissions')).toHaveLength(counts.commissions);
    expect(counts.leads).toBeGreaterThan(0);
    expect(counts.renewals).toBeGreaterThan(0);
    expect(counts.leads).toBeLessThanOrEqual(counts.clicks);
    expect(counts.conversions).toBeLessThanOrEqual(counts.leads);
    expect(counts.sales).toBe(counts.conversions + counts.renewals);
    expect(counts.commissions).toBe(counts.sales);
  });

  test('ids are consecutive from the answers to its requests, one per table, and the rows refer to each other', () => {
    const { parts, counts, reserved } = generate();
    expect(reserved).toEqual([
      { table: 'partners', first: 11, count: counts.partners },
      { table: 'partner_programs', first: 21, count: counts.partners },
      { table: 'clicks', first: 1001, count: counts.clicks },
      { table: 'customers', first: 501, count: counts.leads },
      { table: 'sale_events', first: 301, count: counts.sales },
      { table: 'commissions', first: 201, count: counts.sales },
    ]);
    const [partners, enrollments, clicks, customers, sales, ledger, commissions] = ['partners', 'partner_programs', 'clicks', 'customers', 'sale_events', 'sale_transactions', 'commissions'].map(
      (table) => rows(parts, table),
    );
    expect(partners.map((p) => p.id)).toEqual(range(11, counts.partners));
    expect(enrollments.map((e) => e.id)).toEqual(range(21, counts.partners));
    expect(enrollments.map((e) => e.partner_id)).toEqual(range(11, counts.partners));
    expect(new Set(enrollments.map((e) => e.ref_code)).size).toBe(counts.partners);
    expect(clicks.map((c) => c.id)).toEqual(range(1001, counts.clicks));
    expect(customers.map((c) => c.id)).toEqual(range(501, counts.leads));
    expect(sales.map((s) => s.id)).toEqual(range(301, counts.sales));
    expect(commissions.map((c) => c.id)).toEqual(range(201, counts.sales));
    expect(ledger.map((t) => t.sale_id)).toEqual(range(301, counts.sales));
    expect(commissions.map((c) => c.sale_id)).toEqual(range(301, counts.sales));

    const enrollmentIds = new Set(range(21, counts.partners));
    expect(clicks.filter((c) => !new RegExp(`^ck_${c.id}_[A-Za-z0-9_-]{16}$`).test(String(c.click_id)) || !enrollmentIds.has(c.partner_program_id as number))).toEqual([]);
    const clickById = new Map(clicks.map((c) => [c.id, c]));
    const misattributed = customers.filter((customer) => {
      const click = clickById.get(customer.click_id);
      return click === undefined || customer.click_ref !== click.click_id || customer.partner_program_id !== click.partner_program_id || customer.attributed_from !== click.created_at;
    });
    expect(misattributed).toEqual([]);
    const customerIds = new Set(customers.map((c) => c.id));
    expect(sales.filter((sale) => !customerIds.has(sale.customer_id))).toEqual([]);
    expect(parts.flatMap((part) => Array.from(part.columns.program_id ?? []).filter((id) => id !== FRAME.programId))).toEqual([]);
  });

  test('every row lies within the frame, each day’s clicks within their day, none in the future', () => {
    const { parts } = generate();
    const outside = parts.flatMap((part) =>
      INSTANTS.flatMap((name) =>
        Array.from(part.columns[name] ?? [])
          .filter((at) => at !== null && ((at as number) < FRAME.firstDay || (at as number) > NOW))
          .map((at) => `${part.table}.${name} ${at}`),
      ),
    );
    expect(outside).toEqual([]);
    expect(FRAME.firstDay).toBe(Date.parse('2026-01-15T00:00:00Z'));
    const offDay = parts
      .filter((part) => part.table === 'clicks')
      .flatMap(({ columns }, d) => {
        const start = FRAME.firstDay + d * DAY_MS;
        return (Array.from(columns.created_at) as number[]).filter((at) => at < start || at >= Math.min(start + DAY_MS, NOW));
      });
    expect(offDay).toEqual([]);
  });

  test('no clicks: partners only, every other table empty', () => {
    const { parts, counts } = generate({ ...OPTIONS, clicks: 0 });
    expect(counts).toEqual({ partners: 5, clicks: 0, leads: 0, conversions: 0, sales: 0, renewals: 0, commissions: 0 });
    expect(parts.filter((part) => part.table !== 'partners' && part.table !== 'partner_programs').every((part) => part.rowCount === 0)).toBe(true);
  });
});
