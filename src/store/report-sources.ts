/*
 * What the reports sum, and where each sum comes from: the rollups keep these sums per hour and per
 * day, and reports read the events of a window's partial hours with them (rollups.ts,
 * docs/rollups.md#what-they-hold). A new source of a metric goes here, once.
 */

/** The counts a report sums. */
export const COUNTS = ['clicks', 'leads', 'leadStatus', 'conversions', 'sales', 'partners'] as const;
/** The sums of money (integer cents, HUGEINT: a sum can pass 2^63; docs/reports.md#rounding). */
export const MONEY = ['revenueCents', 'commissionCents', 'refundedCents'] as const;
export const MEASURES = [...COUNTS, ...MONEY] as const;
export type Measure = (typeof MEASURES)[number];

// Sums of money stay HUGEINT (DuckDB's sum of a BIGINT), which the store hands over as a bigint.
const sumAs = (type: string) => (m: string) => `CAST(coalesce(sum("${m}"), 0) AS ${type}) AS "${m}"`;
/** Every measure of `parts` summed, as the reports' select list. */
export const TOTALS = [...COUNTS.map(sumAs('BIGINT')), ...MONEY.map(sumAs('HUGEINT'))].join(', ');

export type Source = {
  /** The aggregate each measure of the source sums to, over the source's rows. */
  sums: Partial<Record<Measure, string>>;
  table: string;
  /** The instant that dates a row. */
  at: string;
  /** The stored UTC day of that instant; NULL where a row never counts. */
  day: string;
  where: string;
  /** The column naming the partner's enrollment; null where reports do not split by partner. */
  enrollment: string | null;
};

/**
 * Where each metric comes from (docs/reports.md#what-counts-and-how-each-metric-is-dated): its table, the instant that dates it, the
 * stored UTC day of that instant, its filter, and the column naming the partner's enrollment (the
 * per-partner report splits every source that has one; docs/reports.md#per-partner-report). Test data never
 * counts: test clicks have no day (migration 003), so every filter on the day leaves them out; test
 * sales live in their own table.
 */
export const SOURCES: Source[] = [
  { sums: { clicks: 'count(*)' }, table: 'clicks', at: 'created_at', day: 'day', where: 'true', enrollment: 'partner_program_id' },
  {
    sums: { leads: 'count(*)', leadStatus: `count(*) FILTER (WHERE status = 'lead')` },
    // Every customer is a lead or a conversion (the table's CHECK), so no status filter: it cost a
    // fifth of the report at a million customers.
    table: 'customers', at: 'signup_date', day: 'signup_day', where: 'true', enrollment: 'partner_program_id',
  },
  {
    sums: { conversions: 'count(*)' },
    table: 'customers', at: 'first_purchase_date', day: 'first_purchase_day', where: "status = 'conversion'", enrollment: 'partner_program_id',
  },
  {
    sums: { revenueCents: 'sum(amount_cents)', sales: 'count(*)' },
    table: 'sale_events', at: 'coalesce(occurred_at, received_at)', day: 'paid_day', where: "status = 'paid'", enrollment: 'partner_program_id',
  },
  // Refunds net revenue, and a completed one takes its sale out of the count, on the sale's own day:
  // an append-only table carrying that day and the sale's enrollment, so no sale row is ever updated
  // (docs/reports.md#refunds-in-the-performance-report). Test refunds have no days.
  {
    sums: { revenueCents: '-sum(amount_cents)', sales: '-count(*) FILTER (WHERE completes_sale)' },
    table: 'refunds', at: 'paid_at', day: 'paid_day', where: 'true', enrollment: 'partner_program_id',
  },
  { sums: { refundedCents: 'sum(amount_cents)' }, table: 'refunds', at: 'received_at', day: 'day', where: 'true', enrollment: 'partner_program_id' },
  { sums: { partners: 'count(*)' }, table: 'partner_programs', at: 'created_at', day: 'CAST(created_at AS DATE)', where: 'true', enrollment: null },
  {
    sums: { commissionCents: 'sum(amount_cents)' },
    table: 'commissions', at: 'created_at', day: 'day', where: "status NOT IN ('reversed', 'rejected')", enrollment: 'partner_program_id',
  },
];

/** The counts and sums of the per-partner report and the partner portal (docs/reports.md#per-partner-report). */
export const PARTNER_COUNTS = ['clicks', 'leadStatus', 'conversions', 'sales'] as const;
/** The per-partner row has no refunded total: refunds net its revenue. */
export const PARTNER_MONEY = ['revenueCents', 'commissionCents'] as const;
export const PARTNER_MEASURES = [...PARTNER_COUNTS, ...PARTNER_MONEY] as const;
/** The partner measures of `parts` summed. */
export const PARTNER_TOTALS = [...PARTNER_COUNTS.map(sumAs('BIGINT')), ...PARTNER_MONEY.map(sumAs('HUGEINT'))].join(', ');
