import { utc } from '@date-fns/utc';
import { addDays } from 'date-fns/addDays';
import { addMonths } from 'date-fns/addMonths';
import { startOfDay } from 'date-fns/startOfDay';
import type { DemoOptions, DemoResult } from '../api/index.js';
import type { BulkRows } from '../store/demo-loader.js';
import { MS_PER_DAY } from '../days.js';
import { programKey } from '../store/program-key.js';
import { commissionCents, holdUntil } from './commission.js';


/** Where a history sits: its program, the start of its first UTC day and the instant it ends (epoch milliseconds). */
export type DemoFrame = { programId: number; firstDay: number; now: number };

/** The tables whose ids a history takes from the store. */
export type DemoIdTable = 'partners' | 'partner_programs' | 'clicks' | 'customers' | 'sale_events' | 'commissions';

/**
 * A history's request for ids, yielded before the rows that use them: it resumes with the first of
 * `count` consecutive new ids of `table`, which the store may have to take from the database
 * (PostgreSQL's counters) between two parts.
 */
export type IdRequest = { reserve: DemoIdTable; count: number };

/** What a history takes from outside: `refCode` a referral code, which must be unique across loads, so two loads of one seed cannot share a code. */
export type DemoSources = { refCode(): string };

type DemoCounts = DemoResult['counts'];

/** The demo program's terms, which its commissions follow. */
export const DEMO_TERMS = { commission: { type: 'percent' as const, value: 2000 }, holdDays: 30 }; // 20 %

const LEAD_RATE = 0.1; // 10 M clicks make about 1 M customers and 500 k sales, the benchmark's shape
const CONVERSION_RATE = 0.35;
const MONTHLY_CHURN = 0.08;
const PLANS = [
  { product: 'starter-monthly', cents: 2900, weight: 30, monthly: true },
  { product: 'pro-monthly', cents: 7900, weight: 20, monthly: true },
  { product: 'business-monthly', cents: 19_900, weight: 10, monthly: true },
  { product: 'ebook', cents: 4900, weight: 25, monthly: false },
  { product: 'course', cents: 14_900, weight: 15, monthly: false },
];
const PARTNER_NAMES = ['Ada', 'Bo', 'Cleo', 'Dev', 'Eli', 'Fay', 'Gus', 'Hana', 'Ivo', 'Jun', 'Kai', 'Lea', 'Mo', 'Nia', 'Oli', 'Pia'];

/** mulberry32: a small, fast, seedable PRNG; the same seed gives the same history (and fault schedule in tests). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The start of the first UTC day of a history of `days` days ending at `now` (today included). */
export function historyStart(now: number, days: number): number {
  return startOfDay(addDays(now, 1 - days, { in: utc }), { in: utc }).getTime();
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const PAIRS = Array.from({ length: 4096 }, (_, i) => ALPHABET[i >> 6] + ALPHABET[i & 63]);

/**
 * 16 base64url characters (96 bits, four draws) for a click id: millions are needed fast, and
 * number-to-string conversions cost more than the rest of the load together (profiled).
 */
function clickSecret(random: () => number): string {
  let secret = '';
  for (let i = 0; i < 4; i++) {
    const bits = (random() * 16_777_216) | 0; // 24 bits: two table lookups
    secret += PAIRS[bits >> 12] + PAIRS[bits & 4095];
  }
  return secret;
}

/** Splits `total` over weights exactly (largest remainder). */
function apportion(total: number, weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const exact = weights.map((w) => (sum === 0 ? 0 : (total * w) / sum));
  const counts = exact.map(Math.floor);
  const order = exact.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  for (let k = 0, left = total - counts.reduce((a, b) => a + b, 0); k < left; k++) counts[order[k % order.length][1]]++;
  return counts;
}

/** Index into cumulative weights. */
function pick(cumulative: number[], random: () => number): number {
  const x = random() * cumulative[cumulative.length - 1];
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid] > x) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function exponential(random: () => number, mean: number): number {
  return -mean * Math.log(1 - random());
}

type Customer = { clickRowId: number; clickRef: string; clickedAt: number; partnerProgramId: number; signup: number; key: string; firstPurchase: number | null };
type Sale = { customer: Customer; at: number; cents: number; product: string; recurring: boolean; subscriptionId: string | null };

/**
 * A program's demo history: partners, clicks, leads, conversions, sales (renewals included) and
 * commissions over the frame's days. Yields the rows in the order they are to be appended, each
 * table in time order: partners, their enrollments, the clicks one day at a time (so memory
 * grows with customers and sales, not clicks), then customers, sales, their ledger entries and
 * commissions; before a table's first rows, the request for their ids; returns the counts. The
 * same options, frame, sources and ids give the same rows.
 */
export function* demoHistory(options: DemoOptions, frame: DemoFrame, sources: DemoSources): Generator<BulkRows | IdRequest, DemoCounts, number> {
  const { programId, firstDay, now } = frame;
  const random = seededRandom(options.seed);

  // Partners: a third from the first day, the rest joining over the period; a few bring most clicks.
  const partnerCount = Math.min(50, 5 + Math.floor(Math.sqrt(options.clicks) / 50));
  const joined = Array.from({ length: partnerCount }, (_, i) =>
    i < Math.ceil(partnerCount / 3) ? firstDay : firstDay + Math.floor(random() * (now - firstDay)),
  ).sort((a, b) => a - b);
  const partnerId = yield { reserve: 'partners', count: partnerCount };
  const enrollmentId = yield { reserve: 'partner_programs', count: partnerCount };
  const partnerIds = joined.map((_, i) => partnerId + i);
  const enrollmentIds = joined.map((_, i) => enrollmentId + i);
  yield {
    table: 'partners',
    columns: {
      id: partnerIds,
      name: partnerIds.map((_, i) => `${PARTNER_NAMES[i % PARTNER_NAMES.length]} ${i + 1}`),
      email: partnerIds.map((_, i) => `partner${i + 1}@demo-${programId}.example`),
      created_at: joined,
      status: partnerIds.map(() => 'active'),
    },
    rowCount: partnerCount,
  };
  yield {
    table: 'partner_programs',
    columns: {
      id: enrollmentIds,
      partner_id: partnerIds,
      program_id: joined.map(() => programId),
      ref_code: joined.map(() => sources.refCode()),
      status: joined.map(() => 'active'),
      created_at: joined,
    },
    rowCount: partnerCount,
  };
  const partnerWeights = joined.map((_, i) => 1 / (i + 1) ** 0.8);

  // Clicks per day: growing, quieter at weekends, some noise; today only up to now.
  const days = Array.from({ length: options.days }, (_, d) => firstDay + d * MS_PER_DAY);
  const weights = days.map((start, d) => {
    const weekday = new Date(start).getUTCDay();
    const growth = 1 + (0.6 * d) / Math.max(1, options.days - 1);
    const share = Math.min(1, (now - start) / MS_PER_DAY);
    return growth * (weekday === 0 || weekday === 6 ? 0.75 : 1) * (0.85 + 0.3 * random()) * share;
  });
  const perDay = apportion(options.clicks, weights);
  let clickRowId = yield { reserve: 'clicks', count: options.clicks };
  const customers: Customer[] = [];
  for (let d = 0; d < days.length; d++) {
    const n = perDay[d];
    const end = Math.min(days[d] + MS_PER_DAY, now);
    const times = new Float64Array(n);
    for (let i = 0; i < n; i++) times[i] = days[d] + Math.floor(random() * (end - days[d]));
    times.sort();
    // Partners enrolled by the start of the day share its clicks.
    const open = joined.filter((at) => at <= days[d]).length || 1;
    const cumulative: number[] = [];
    partnerWeights.slice(0, open).reduce((sum, w) => (cumulative.push(sum + w), sum + w), 0);
    const ids = new Array<number>(n);
    const clickIds = new Array<string>(n);
    const enrollments = new Array<number>(n);
    for (let i = 0; i < n; i++, clickRowId++) {
      ids[i] = clickRowId;
      clickIds[i] = `ck_${clickRowId}_${clickSecret(random)}`;
      enrollments[i] = enrollmentIds[pick(cumulative, random)];
      if (random() < LEAD_RATE) {
        const signup = times[i] + Math.floor(exponential(random, 2 * 3_600_000));
        if (signup < now) customers.push({ clickRowId, clickRef: clickIds[i], clickedAt: times[i], partnerProgramId: enrollments[i], signup, key: `demo_${clickRowId}`, firstPurchase: null });
      }
    }
    yield {
      table: 'clicks',
      columns: {
        id: ids,
        click_id: clickIds,
        program_id: new Array(n).fill(programId),
        partner_program_id: enrollments,
        is_test: new Array(n).fill(false),
        created_at: times,
        day: times,
      },
      rowCount: n,
    };
  }

  const sales = purchases(customers, random, now);
  customers.sort((a, b) => a.signup - b.signup);
  const customerId = yield { reserve: 'customers', count: customers.length };
  const customerIds = new Map(customers.map((c, i) => [c, customerId + i]));
  yield {
    table: 'customers',
    columns: {
      id: customers.map((c) => customerIds.get(c)!),
      customer_ref: customers.map((c) => programKey(programId, c.key)),
      program_id: customers.map(() => programId),
      customer_key: customers.map((c) => c.key),
      click_id: customers.map((c) => c.clickRowId),
      click_ref: customers.map((c) => c.clickRef),
      partner_program_id: customers.map((c) => c.partnerProgramId),
      signup_date: customers.map((c) => c.signup),
      first_purchase_date: customers.map((c) => c.firstPurchase),
      status: customers.map((c) => (c.firstPurchase === null ? 'lead' : 'conversion')),
      attributed_from: customers.map((c) => c.clickedAt),
      signup_day: customers.map((c) => c.signup),
      first_purchase_day: customers.map((c) => c.firstPurchase),
    },
    rowCount: customers.length,
  };

  sales.sort((a, b) => a.at - b.at);
  const saleId = yield { reserve: 'sale_events', count: sales.length };
  const commissionId = yield { reserve: 'commissions', count: sales.length };
  const saleIds = sales.map((_, i) => saleId + i);
  const transactionIds = saleIds.map((id) => `in_demo_${id}`);
  const programIds = sales.map(() => programId);
  const times = sales.map((s) => s.at);
  const enrollments = sales.map((s) => s.customer.partnerProgramId);
  yield {
    table: 'sale_events',
    columns: {
      id: saleIds,
      program_id: programIds,
      customer_id: sales.map((s) => customerIds.get(s.customer)!),
      partner_program_id: enrollments,
      transaction_id: transactionIds,
      amount_cents: sales.map((s) => s.cents),
      currency: sales.map(() => 'USD'),
      sale_type: sales.map((s) => (s.subscriptionId ? 'subscription' : 'payment')),
      is_recurring: sales.map((s) => s.recurring),
      subscription_id: sales.map((s) => s.subscriptionId),
      subscription_interval: sales.map((s) => (s.subscriptionId ? 'monthly' : null)),
      product_id: sales.map((s) => s.product),
      provider: sales.map(() => 'stripe'),
      source: sales.map(() => 'api'),
      status: sales.map(() => 'paid'),
      received_at: times,
      paid_day: times,
    },
    rowCount: sales.length,
  };
  yield {
    table: 'sale_transactions',
    columns: {
      txn_key: transactionIds.map((id) => programKey(programId, 'live', id)),
      program_id: programIds,
      mode: sales.map(() => 'live'),
      transaction_id: transactionIds,
      sale_id: saleIds,
      created_at: times,
    },
    rowCount: sales.length,
  };
  yield {
    table: 'commissions',
    columns: {
      id: saleIds.map((_, i) => commissionId + i),
      program_id: programIds,
      sale_id: saleIds,
      partner_program_id: enrollments,
      amount_cents: sales.map((s) => commissionCents(s.cents, DEMO_TERMS.commission)),
      currency: sales.map(() => 'USD'),
      status: sales.map(() => 'pending'),
      hold_until: sales.map((s) => holdUntil(new Date(s.at), DEMO_TERMS.holdDays)),
      created_at: times,
      day: times,
      type: sales.map(() => 'sale'),
      percent_bp: sales.map(() => DEMO_TERMS.commission.value),
    },
    rowCount: sales.length,
  };
  const renewals = sales.filter((s) => s.recurring).length;
  return {
    partners: partnerCount,
    clicks: options.clicks,
    leads: customers.length,
    conversions: sales.length - renewals,
    sales: sales.length,
    renewals,
    commissions: sales.length,
  };
}

/** Conversions, first payments and monthly renewals until churn or now; marks each converted customer's first purchase. */
function purchases(customers: Customer[], random: () => number, now: number): Sale[] {
  const planWeights: number[] = [];
  PLANS.reduce((sum, p) => (planWeights.push(sum + p.weight), sum + p.weight), 0);
  const sales: Sale[] = [];
  for (const customer of customers) {
    if (random() >= CONVERSION_RATE) continue;
    const first = customer.signup + Math.floor(exponential(random, 3 * MS_PER_DAY));
    if (first >= now) continue;
    customer.firstPurchase = first;
    const plan = PLANS[pick(planWeights, random)];
    const subscriptionId = plan.monthly ? `sub_${customer.key}` : null;
    sales.push({ customer, at: first, cents: plan.cents, product: plan.product, recurring: false, subscriptionId });
    for (let month = 1; plan.monthly && random() >= MONTHLY_CHURN; month++) {
      const at = addMonths(first, month, { in: utc }).getTime();
      if (at >= now) break;
      sales.push({ customer, at, cents: plan.cents, product: plan.product, recurring: true, subscriptionId });
    }
  }
  return sales;
}
