import { utc } from '@date-fns/utc';
import { addDays, addMonths, startOfDay } from 'date-fns';
import type { DemoOptions, DemoResult } from '../api/index.js';
import { BulkLoad } from '../store/demo-loader.js';
import { transactionKey } from '../store/sales.js';
import { customerRef } from '../store/tracking.js';
import { commissionCents, holdUntil } from './commission.js';
import type { Deps } from './deps.js';
import * as provisioning from './provisioning.js';
import { randomCode } from './secrets.js';

export const DEMO_MEMBER_EMAIL = 'demo@partnerkit.local';

/** Progress of a load: clicks written so far of the total. */
export type DemoProgress = (done: number, total: number) => void;

const DAY_MS = 86_400_000;
const LEAD_RATE = 0.1; // 10 M clicks make about 1 M customers and 500 k sales, the benchmark's shape
const CONVERSION_RATE = 0.35;
const MONTHLY_CHURN = 0.08;
const COMMISSION = { type: 'percent' as const, value: 2000 }; // 20 %
const HOLD_DAYS = 30;
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
 * `partnerkit demo`: a program with partners, a workspace member and a session, and a history of
 * clicks, leads, conversions, sales (renewals included) and commissions over the last `days` days,
 * the same for the same seed. Provisioning goes through the domain functions; the history is
 * bulk-loaded in one transaction through the appender (the one exception to the HTTP path).
 */
export async function loadDemo(deps: Deps, options: DemoOptions, progress: DemoProgress = () => {}): Promise<DemoResult> {
  const random = seededRandom(options.seed);
  const now = deps.clock.now().getTime();
  const firstDay = startOfDay(addDays(now, 1 - options.days, { in: utc }), { in: utc }).getTime();
  // The program exists from the start of the history, so `--period all` shows all of it.
  const atStart = { store: deps.store, clock: { now: () => new Date(firstDay) } };
  const program = await provisioning.createProgram(atStart, {
    name: `Demo program (seed ${options.seed})`,
    commission: COMMISSION,
    attributionWindowDays: 90,
    holdDays: HOLD_DAYS,
    recurringMonths: null,
  });
  await provisioning.setMembership(deps, program.id, DEMO_MEMBER_EMAIL, 'active');
  const session = await provisioning.createSession(deps, DEMO_MEMBER_EMAIL, 24);

  const counts = await BulkLoad.run(deps.store, async (load) => {
    // Partners: a third from the first day, the rest joining over the period; a few bring most clicks.
    const partnerCount = Math.min(50, 5 + Math.floor(Math.sqrt(options.clicks) / 50));
    const joined = Array.from({ length: partnerCount }, (_, i) =>
      i < Math.ceil(partnerCount / 3) ? firstDay : firstDay + Math.floor(random() * (now - firstDay)),
    ).sort((a, b) => a - b);
    const partnerId = await load.ids('partners', partnerCount);
    const enrollmentId = await load.ids('partner_programs', partnerCount);
    const partnerIds = joined.map((_, i) => partnerId + i);
    const enrollmentIds = joined.map((_, i) => enrollmentId + i);
    await load.append(
      'partners',
      {
        id: partnerIds,
        name: partnerIds.map((_, i) => `${PARTNER_NAMES[i % PARTNER_NAMES.length]} ${i + 1}`),
        email: partnerIds.map((_, i) => `partner${i + 1}@demo-${program.id}.example`),
        created_at: joined,
      },
      partnerCount,
    );
    await load.append(
      'partner_programs',
      {
        id: enrollmentIds,
        partner_id: partnerIds,
        program_id: joined.map(() => program.id),
        ref_code: joined.map(() => randomCode()),
        status: joined.map(() => 'active'),
        created_at: joined,
      },
      partnerCount,
    );
    const partnerWeights = joined.map((_, i) => 1 / (i + 1) ** 0.8);

    // Clicks per day: growing, quieter at weekends, some noise; today only up to now.
    const days = Array.from({ length: options.days }, (_, d) => firstDay + d * DAY_MS);
    const weights = days.map((start, d) => {
      const weekday = new Date(start).getUTCDay();
      const growth = 1 + (0.6 * d) / Math.max(1, options.days - 1);
      const share = Math.min(1, (now - start) / DAY_MS);
      return growth * (weekday === 0 || weekday === 6 ? 0.75 : 1) * (0.85 + 0.3 * random()) * share;
    });
    const perDay = apportion(options.clicks, weights);
    let clickRowId = await load.ids('clicks', options.clicks);
    const customers: Customer[] = [];
    let written = 0;
    for (let d = 0; d < days.length; d++) {
      const n = perDay[d];
      const end = Math.min(days[d] + DAY_MS, now);
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
      await load.append(
        'clicks',
        {
          id: ids,
          click_id: clickIds,
          program_id: new Array(n).fill(program.id),
          partner_program_id: enrollments,
          is_test: new Array(n).fill(false),
          created_at: times,
          day: times,
        },
        n,
      );
      written += n;
      progress(written, options.clicks);
      // Between days, let timers (a progress bar) and, in a server, other requests run.
      await new Promise((resolve) => setImmediate(resolve));
    }

    // Conversions, first payments and monthly renewals until churn or now.
    const planWeights: number[] = [];
    PLANS.reduce((sum, p) => (planWeights.push(sum + p.weight), sum + p.weight), 0);
    const sales: Sale[] = [];
    for (const customer of customers) {
      if (random() >= CONVERSION_RATE) continue;
      const first = customer.signup + Math.floor(exponential(random, 3 * DAY_MS));
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

    customers.sort((a, b) => a.signup - b.signup);
    const customerId = await load.ids('customers', customers.length);
    const customerIds = new Map(customers.map((c, i) => [c, customerId + i]));
    await load.append(
      'customers',
      {
        id: customers.map((c) => customerIds.get(c)!),
        customer_ref: customers.map((c) => customerRef(program.id, c.key)),
        program_id: customers.map(() => program.id),
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
      customers.length,
    );

    sales.sort((a, b) => a.at - b.at);
    const saleId = await load.ids('sale_events', sales.length);
    const commissionId = await load.ids('commissions', sales.length);
    const saleIds = sales.map((_, i) => saleId + i);
    const transactionIds = saleIds.map((id) => `in_demo_${id}`);
    const programIds = sales.map(() => program.id);
    const times = sales.map((s) => s.at);
    const enrollments = sales.map((s) => s.customer.partnerProgramId);
    await load.append(
      'sale_events',
      {
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
      sales.length,
    );
    await load.append(
      'sale_transactions',
      {
        txn_key: transactionIds.map((id) => transactionKey(program.id, 'live', id)),
        program_id: programIds,
        mode: sales.map(() => 'live'),
        transaction_id: transactionIds,
        sale_id: saleIds,
        created_at: times,
      },
      sales.length,
    );
    await load.append(
      'commissions',
      {
        id: saleIds.map((_, i) => commissionId + i),
        program_id: programIds,
        sale_id: saleIds,
        partner_program_id: enrollments,
        amount_cents: sales.map((s) => commissionCents(s.cents, COMMISSION)),
        currency: sales.map(() => 'USD'),
        status: sales.map(() => 'pending'),
        hold_until: sales.map((s) => holdUntil(new Date(s.at), HOLD_DAYS)),
        created_at: times,
        day: times,
      },
      sales.length,
    );
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
  });

  return {
    programId: program.id,
    name: program.name,
    apiKey: program.apiKey,
    testApiKey: program.testApiKey,
    memberEmail: DEMO_MEMBER_EMAIL,
    sessionToken: session.token,
    sessionExpiresAt: session.expiresAt,
    from: new Date(firstDay).toISOString(),
    to: new Date(now).toISOString(),
    counts,
  };
}
