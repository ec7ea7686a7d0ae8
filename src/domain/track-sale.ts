import type { Sql, Store } from '../store/db.js';
import { programKey } from '../store/program-key.js';
import * as sales from '../store/sales.js';
import type { CommissionRow, SaleEventRow, SaleMode, TestSaleRow, TransactionRow } from '../store/sales.js';
import * as tracking from '../store/tracking.js';
import type { AttributableCustomer, CustomerRow } from '../store/tracking.js';
import { appendCodeSales, type CodeSaleRow, type EnrolledCode } from '../store/promotion-codes.js';
import { codeRefKey, findAttributingCodes, type CodeRef } from './promotion-codes.js';
import type { FraudEventRow } from '../store/fraud.js';
import { checkFraud, countSales, fraudEventRow, fraudModes, refundRates, storeFraudEvents, type RefundRate } from './fraud.js';
import { commissionCents, holdUntil, renewalEarnsCommission, withinAttributionWindow } from './commission.js';
import { figureCells, groupOf, movesFrom, saleTerms, thresholdsOf, type FigureCell } from './groups.js';
import { appendMoves, figureKey, setEnrollmentGroup, type FigureQuery, type GroupMoveRow } from '../store/groups.js';
import type { Deps } from './deps.js';
import { rewardLeads } from './lead-rewards.js';
import { cachedPrograms, type CachedProgram } from './program-cache.js';
import { CURRENCIES, type Currency, type SaleRequest } from '../api/index.js';
import { findCustomersByClickIds } from './tracking.js';
import { batched, type BatchRun } from './write-batcher.js';
import { emit, type OutboundEvent } from './outbound/events.js';
import { liveSaleEvents, testSaleEvent } from './outbound/payloads.js';
import { notifyCommissions } from './mail/notifications.js';

/** Who reports the sale: the API key's program and mode, or the webhook's program. */
export type SaleSource = { programId: number; apiKeyId: number | null; keyMode: SaleMode; source: 'api' | 'stripe' };

/** Why a sale is refused. The sale endpoint maps each reason to its error, the webhooks to a skip reason. */
export type SaleRefusal =
  | { reason: 'missing_fields'; fields: string[] }
  | { reason: 'unsupported_currency'; currency: string }
  | { reason: 'no_attribution'; customerKey: string | null; clickId: string | null; couponCode: string | null }
  | { reason: 'partner_inactive'; customerId: number };

/** What became of a sale (docs/sales.md#sales-post-apiv1tracksale): data, never an exception. */
export type SaleOutcome =
  /** A live sale; commissionId is null when a renewal is past the program's recurring duration. */
  | { kind: 'recorded'; saleId: number; commissionId: number | null }
  | { kind: 'test_recorded'; eventId: number; programId: number }
  /** Attributed, but outside the attribution window: the transaction id is remembered, nothing else. */
  | { kind: 'window_expired' }
  /** The transaction id was recorded before; saleId is null when that attempt's window had expired. */
  | { kind: 'duplicate'; saleId: number | null }
  | ({ kind: 'refused' } & SaleRefusal);

/** Test mode by any of its three triggers (docs/sales.md#test-mode). */
function saleMode(keyMode: SaleMode, request: SaleRequest): SaleMode {
  const test = keyMode === 'test' || request.additional_data?.test_mode === true || request.livemode === false;
  return test ? 'test' : 'live';
}

function isCurrency(currency: string): currency is Currency {
  return (CURRENCIES as readonly string[]).includes(currency);
}

/**
 * Records a sale in the order of docs/sales.md#order-of-checks (after authorization and rate limiting):
 * required live fields and currency here, then duplicate, attribution, window, and the sale with
 * its commission in the writer's transaction.
 */
export async function trackSale(deps: Deps, source: SaleSource, request: SaleRequest): Promise<SaleOutcome> {
  const pending = pendingSale(source, request);
  return 'refused' in pending ? pending.refused : recordSale(deps, pending);
}

/**
 * A sale that passed the checks needing no store (validation of live fields, currency), ready for
 * recordSales. `customer` is its request's customer_key already read in this transaction (the
 * webhooks attribute in their own order first): it spares the lookup, not the attribution checks.
 */
export type PendingSale = {
  source: SaleSource;
  request: SaleRequest;
  mode: SaleMode;
  currency: Currency;
  customer?: AttributableCustomer;
  /** The Stripe payment intent and charge the sale's webhook event named, remembered for its refunds. */
  payment?: StripePayment;
  /** The Stripe promotion code of the event's discounts: the code step's value instead of coupon_code. */
  promotion?: CodeRef;
};

/** The code a sale names for the last attribution step (docs/promotion-codes.md#attribution-by-code). */
function codeRefOf({ promotion, request }: PendingSale): CodeRef | undefined {
  return promotion ?? (request.coupon_code === undefined ? undefined : { code: request.coupon_code });
}

/** Stripe's ids of a payment: the payment intent and the charge. */
export type StripePayment = { paymentIntentId?: string; chargeId?: string };

const paymentIds = (payment: StripePayment | undefined) => ({ payment_intent_id: payment?.paymentIntentId ?? null, charge_id: payment?.chargeId ?? null });
type Refused = Extract<SaleOutcome, { kind: 'refused' }>;

/** The sale ready for recordSales, or its refusal by the checks that need no lookup. */
export function pendingSale(source: SaleSource, request: SaleRequest): PendingSale | { refused: Refused } {
  const mode = saleMode(source.keyMode, request);
  const missing = mode === 'live' ? missingLiveFields(request) : [];
  if (missing.length > 0) return { refused: { kind: 'refused', reason: 'missing_fields', fields: missing } };
  const currency = (request.currency ?? 'USD').toUpperCase();
  if (!isCurrency(currency)) return { refused: { kind: 'refused', reason: 'unsupported_currency', currency: request.currency! } };
  return { source, request, mode, currency };
}

/** Everything a batch needs from the store, read in a fixed number of round trips. */
type BatchContext = {
  seen: Map<string, number | null>;
  programs: Map<number, CachedProgram>;
  customersByKey: Map<string, AttributableCustomer>;
  customersByClick: Map<string, AttributableCustomer>;
  /** The codes that attribute, by codeRefKey: read only for sales whose key and click found no one. */
  codes: Map<string, EnrolledCode>;
  firstSubscriptionSale: Map<string, Date>;
  /** The refund rates of the enrollments the batch may credit, where the program checks them (docs/fraud.md#rules-on-the-write-path). */
  refundRates: Map<number, RefundRate>;
  /**
   * The thresholds' figures of the enrollments the batch may credit, where their program has
   * thresholds, by figureKey; each sale adds itself (docs/groups.md#automatic-moves).
   */
  figures: Map<string, number>;
  /** Where the figures were read or remembered: they take the batch's figures once it committed. */
  figureCells: Map<string, FigureCell>;
  /** The group of each enrollment a sale of the batch moved, as the batch left it. */
  movedTo: Map<number, number>;
};

const recordSale = batched(recordSales);

/** What deciding the batch needs; `seen` is the ledger entries recordSales looked up (none on a first run). */
async function loadContext(store: Store, sql: Sql, batch: PendingSale[], seen: BatchContext['seen'], now: Date): Promise<BatchContext> {
  const live = batch.filter((s) => s.mode === 'live');
  const programIds = [...new Set(batch.map((s) => s.source.programId))];
  const known = live.flatMap((s) => s.customer ?? []);
  const byKey = live.flatMap((s) =>
    s.customer || s.request.customer_key === undefined ? [] : [{ programId: s.source.programId, customerKey: s.request.customer_key }],
  );
  const subscriptionIds = live.flatMap((s) => (s.request.is_recurring && s.request.subscription_id !== undefined ? [s.request.subscription_id] : []));

  // One connection runs one statement at a time (docs/store-engines.md#connections), so these reads are sequential.
  const programs = await cachedPrograms(store, sql, programIds);
  const customersByKey = await tracking.findCustomersByKeys(sql, byKey);
  for (const customer of known) customersByKey.set(programKey(customer.program_id, customer.customer_key), customer);
  const firstSales = await sales.firstSubscriptionSales(sql, programIds, subscriptionIds);
  // The click id is the fallback: looked up only for the sales whose customer_key found no one.
  const clickIds = live.flatMap((s) => {
    const keyMatched = s.request.customer_key !== undefined && customersByKey.has(programKey(s.source.programId, s.request.customer_key));
    return keyMatched || s.request.click_id === undefined ? [] : [s.request.click_id];
  });
  const customersByClick = await findCustomersByClickIds(sql, clickIds);
  const codeRefs = live.flatMap((s) => {
    const ref = codeRefOf(s);
    return ref === undefined || findCustomer({ customersByKey, customersByClick }, s.source.programId, s.request) ? [] : [{ programId: s.source.programId, ref }];
  });
  const codes = await findAttributingCodes(sql, codeRefs);
  // Every enrollment a sale may be credited to, of programs whose refund-rate rule is on: read before deciding, in one statement.
  const checked = (programId: number) => {
    const cached = programs.get(programId);
    return cached !== undefined && fraudModes(cached.program).refund_rate !== 'off';
  };
  const enrollments = [...customersByKey.values(), ...customersByClick.values(), ...codes.values()]
    .filter((c) => checked(c.program_id))
    .map((c) => c.partner_program_id);
  const rates = enrollments.length === 0 ? new Map<number, RefundRate>() : await refundRates(store, sql, enrollments, now);
  // The figures thresholds compare, of every enrollment the batch may credit whose program has thresholds: remembered, or one statement.
  const wanted = new Map<string, FigureQuery>();
  for (const c of [...customersByKey.values(), ...customersByClick.values(), ...codes.values()]) {
    const cached = programs.get(c.program_id);
    for (const { metric, window } of cached ? thresholdsOf(cached) : []) {
      const query = { enrollmentId: c.partner_program_id, metric, window };
      wanted.set(figureKey({ enrollment_id: query.enrollmentId, metric, time_window: window }), query);
    }
  }
  const cells = await figureCells(store, sql, [...wanted.values()], now);
  const figures = new Map([...cells].map(([key, cell]) => [key, cell.value]));
  return { seen, programs, customersByKey, customersByClick, codes, firstSubscriptionSale: firstSales, refundRates: rates, figures, figureCells: cells, movedTo: new Map() };
}

/** Rows a batch writes, gathered while deciding each sale in arrival order. */
type BatchWrites = {
  transactions: TransactionRow[];
  saleEvents: SaleEventRow[];
  commissions: CommissionRow[];
  testSales: TestSaleRow[];
  converted: Set<number>;
  /** Customers a promotion code created, and the sales codes attributed. */
  customers: CustomerRow[];
  codeSales: CodeSaleRow[];
  /** What the fraud rules found, ids given when the batch is written. */
  fraud: Array<Omit<FraudEventRow, 'id'>>;
  /** What the batch tells the program's webhook endpoints, written with it (docs/outbound-webhooks.md#the-outbox). */
  events: OutboundEvent[];
  /** The partners its sales moved to another group, ids given when the batch is written. */
  moves: Array<Omit<GroupMoveRow, 'id'>>;
};

/**
 * A batch of sales in the writer's transaction (a RecordBatch; the payment webhooks record theirs
 * inside their own batch). Its first run leaves duplicates to the ledger's primary key,
 * which fails the append of a transaction id already recorded (rare: a merchant's retry); a run
 * after a failure looks every id up first, so the duplicate gets its 409 and the rest is recorded.
 */
export async function recordSales(deps: Deps, sql: Sql, batch: PendingSale[], run: BatchRun): Promise<SaleOutcome[]> {
  const lookUpLedger = run.afterFailure;
  const now = deps.clock.now();
  const keys = batch.map(transactionKeyOf);
  const seen = lookUpLedger ? await sales.findTransactions(sql, keys.filter((key) => key !== undefined)) : new Map<string, number | null>();
  const context = await loadContext(deps.store, sql, batch, seen, now);
  const writes: BatchWrites = {
    transactions: [], saleEvents: [], commissions: [], testSales: [], converted: new Set(), customers: [], codeSales: [], fraud: [], events: [], moves: [],
  };
  const tests = batch.filter((sale) => sale.mode === 'test').length;
  const lives = batch.length - tests;
  // A code creates its sale's customer: ids for them only when some code attributes.
  const needs: Record<string, number> = { sale_events: lives, commissions: lives, test_sale_events: tests };
  if (context.codes.size > 0) needs.customers = lives;
  const nextId = await deps.store.idAllocator(sql, needs);
  const outcomes = batch.map((sale) => decide(sale, context, writes, nextId, now));
  if (!lookUpLedger) await answerDuplicates(sql, keys, outcomes);
  await tracking.appendCustomers(sql, writes.customers);
  await sales.insertTransactions(sql, writes.transactions);
  await sales.insertSaleEvents(sql, writes.saleEvents);
  await sales.insertCommissions(sql, writes.commissions);
  await sales.insertTestSales(sql, writes.testSales);
  // A customer a promotion code created signed up with its sale: their partner's group may pay for that lead.
  if (writes.customers.length > 0) await rewardLeads(deps, sql, writes.customers, context.movedTo);
  await tracking.markConverted(sql, [...writes.converted], now);
  await appendCodeSales(sql, writes.codeSales);
  await storeFraudEvents(deps.store, sql, writes.fraud);
  await storeMoves(deps.store, sql, writes.moves, context.movedTo);
  await emit(deps, sql, writes.events);
  const credited = writes.saleEvents.map((s) => s.partner_program_id);
  run.afterCommit(() => countSales(deps.store, credited));
  run.afterCommit(() => context.figureCells.forEach((cell, key) => (cell.value = context.figures.get(key)!)));
  await notifyCommissions(deps, sql, writes.commissions);
  return outcomes;
}

/** The sale's key in the ledger, unique per program and mode. */
const transactionKeyOf = ({ source, mode, request }: PendingSale) =>
  request.transaction_id === undefined ? undefined : programKey(source.programId, mode, request.transaction_id);

/**
 * Without the ledger lookup a sale refused for another reason (no attribution) may be a resend,
 * and a duplicate is answered first (docs/sales.md#duplicates-and-the-transaction-ledger): the refused sales' ids are looked up,
 * and one already recorded is a duplicate instead. Refused sales wrote nothing, so nothing else changes.
 */
async function answerDuplicates(sql: Sql, keys: Array<string | undefined>, outcomes: SaleOutcome[]): Promise<void> {
  const refused = outcomes.flatMap((outcome, i) => (outcome.kind === 'refused' && keys[i] !== undefined ? [i] : []));
  if (refused.length === 0) return;
  const seen = await sales.findTransactions(sql, refused.map((i) => keys[i]!));
  for (const i of refused) {
    if (seen.has(keys[i]!)) outcomes[i] = { kind: 'duplicate', saleId: seen.get(keys[i]!)! };
  }
}

/** One sale's outcome, given what the store holds and what earlier sales of the batch decided. */
function decide(
  sale: PendingSale,
  context: BatchContext,
  writes: BatchWrites,
  nextId: (table: string) => number,
  now: Date,
): SaleOutcome {
  const { source, request, mode, currency, payment } = sale;
  const txnKey = transactionKeyOf(sale);
  if (txnKey !== undefined && context.seen.has(txnKey)) return { kind: 'duplicate', saleId: context.seen.get(txnKey)! };
  const remember = (saleId: number | null) => {
    if (txnKey === undefined) return;
    context.seen.set(txnKey, saleId);
    writes.transactions.push({ txn_key: txnKey, program_id: source.programId, mode, transaction_id: request.transaction_id!, sale_id: saleId, created_at: now });
  };

  if (mode === 'test') {
    const id = nextId('test_sale_events');
    const row: TestSaleRow = {
      id,
      program_id: source.programId,
      api_key_id: source.apiKeyId ?? 0,
      transaction_id: request.transaction_id ?? null,
      amount_cents: request.amount_cents ?? null,
      currency,
      customer_key: request.customer_key ?? null,
      click_id: request.click_id ?? null,
      request: JSON.stringify(request),
      received_at: now,
      provider_payment_id: request.provider_payment_id ?? null,
      ...paymentIds(payment),
    };
    writes.testSales.push(row);
    writes.events.push(testSaleEvent(row));
    remember(id);
    return { kind: 'test_recorded', eventId: id, programId: source.programId };
  }

  const cached = context.programs.get(source.programId);
  // A sale's program comes from its API key or a verified webhook, and programs are never deleted.
  if (!cached) throw new Error(`invariant: program ${source.programId} of a sale does not exist`);
  const { program } = cached;
  const attributed = attribute(context, sale, writes, nextId, now);
  if ('reason' in attributed) return attributed;
  const { customer, code } = attributed;
  const group = groupOf(cached, context.movedTo.get(customer.partner_program_id) ?? customer.group_id);
  const terms = saleTerms(cached, group, request.product_id);

  if (!withinAttributionWindow(customer.attributed_from, program.attribution_window_days, now)) {
    remember(null);
    return { kind: 'window_expired' };
  }

  const saleId = nextId('sale_events');
  const isRecurring = request.is_recurring ?? false;
  const subscriptionKey = request.subscription_id === undefined ? undefined : programKey(program.id, request.subscription_id);
  const earnsCommission =
    !isRecurring ||
    renewalEarnsCommission(terms.recurringMonths, subscriptionKey === undefined ? undefined : context.firstSubscriptionSale.get(subscriptionKey), now);
  const saleRow: SaleEventRow = {
    id: saleId,
    program_id: program.id,
    customer_id: customer.id,
    partner_program_id: customer.partner_program_id,
    transaction_id: request.transaction_id!,
    amount_cents: request.amount_cents!,
    tax_cents: request.tax_cents ?? null,
    currency,
    sale_type: request.sale_type ?? 'payment',
    is_recurring: isRecurring,
    subscription_id: request.subscription_id ?? null,
    subscription_interval: request.subscription_interval ?? null,
    product_id: request.product_id ?? null,
    provider: request.provider ?? null,
    provider_payment_id: request.provider_payment_id ?? null,
    line_items: request.line_items === undefined ? null : JSON.stringify(request.line_items),
    source: source.source,
    status: 'paid',
    occurred_at: request.occurred_at === undefined ? null : new Date(request.occurred_at),
    received_at: now,
    ...paymentIds(payment),
  };
  writes.saleEvents.push(saleRow);
  remember(saleId);
  if (code) {
    writes.codeSales.push({ sale_id: saleId, program_id: program.id, partner_program_id: code.partner_program_id, promotion_code_id: code.id, paid_at: saleRow.occurred_at ?? now });
  }
  if (subscriptionKey !== undefined && !context.firstSubscriptionSale.has(subscriptionKey)) context.firstSubscriptionSale.set(subscriptionKey, now);
  const converts = code !== undefined || (customer.status === 'lead' && !writes.converted.has(customer.id));
  if (customer.status === 'lead') writes.converted.add(customer.id);
  moveOnThreshold(cached, group, { enrollmentId: customer.partner_program_id, saleId, amountCents: request.amount_cents!, converts }, context, writes, now);

  if (!earnsCommission) {
    writes.events.push(...liveSaleEvents(saleRow, customer.partner_id, undefined));
    return { kind: 'recorded', saleId, commissionId: null };
  }
  const { rule } = terms;
  const commissionId = nextId('commissions');
  const commission: CommissionRow = {
    id: commissionId,
    program_id: program.id,
    sale_id: saleId,
    partner_program_id: customer.partner_program_id,
    amount_cents: commissionCents(request.amount_cents!, rule),
    currency,
    status: 'pending',
    hold_until: holdUntil(now, terms.holdDays),
    created_at: now,
    type: 'sale',
    payout_id: null,
    paid_at: null,
    reason: null,
    percent_bp: rule.type === 'percent' ? rule.value : null,
  };
  const findings = checkFraud(fraudModes(program), {
    customerEmail: customer.email,
    partnerEmail: customer.partner_email,
    clickAt: customer.click_id === null ? null : customer.attributed_from,
    receivedAt: now,
    refunds: context.refundRates.get(customer.partner_program_id),
  });
  // A hold keeps the commission out of approval and payouts until a member resolves it (docs/fraud.md#held-commissions).
  if (findings.some((f) => f.action === 'hold')) commission.status = 'on_hold';
  const at = { programId: program.id, commissionId, saleId, enrollmentId: customer.partner_program_id, now };
  writes.fraud.push(...findings.map((finding) => fraudEventRow(finding, at)));
  writes.commissions.push(commission);
  writes.events.push(...liveSaleEvents(saleRow, customer.partner_id, commission));
  return { kind: 'recorded', saleId, commissionId };
}

/**
 * Adds a recorded sale to its enrollment's figures, and moves the partner on while the thresholds of
 * its group are reached (docs/groups.md#automatic-moves): this sale keeps the reward it was computed
 * with, the next one earns the new group's.
 */
function moveOnThreshold(
  cached: CachedProgram,
  group: ReturnType<typeof groupOf>,
  sale: { enrollmentId: number; saleId: number; amountCents: number; converts: boolean },
  context: BatchContext,
  writes: BatchWrites,
  now: Date,
): void {
  const thresholds = thresholdsOf(cached);
  if (thresholds.length === 0) return;
  const key = (metric: 'conversions' | 'revenue', window: '30d' | 'all') => figureKey({ enrollment_id: sale.enrollmentId, metric, time_window: window });
  for (const { metric, window } of thresholds) {
    const added = metric === 'revenue' ? sale.amountCents : sale.converts ? 1 : 0;
    context.figures.set(key(metric, window), (context.figures.get(key(metric, window)) ?? 0) + added);
  }
  let from = group;
  for (const to of movesFrom(cached, group, (metric, window) => context.figures.get(key(metric, window)) ?? 0)) {
    writes.moves.push({
      program_id: cached.program.id, partner_program_id: sale.enrollmentId, from_group_id: from?.id ?? null, to_group_id: to.id, reason: 'threshold', sale_id: sale.saleId, created_at: now,
    });
    context.movedTo.set(sale.enrollmentId, to.id);
    from = to;
  }
}

/** The moves of a batch with their ids, and each moved enrollment in the group the batch left it in. */
async function storeMoves(store: Store, sql: Sql, moves: BatchWrites['moves'], movedTo: Map<number, number>): Promise<void> {
  if (moves.length === 0) return;
  const first = await store.nextId(sql, 'group_moves', moves.length);
  await appendMoves(sql, moves.map((m, i) => ({ ...m, id: first + i })));
  const byGroup = new Map<number, number[]>();
  for (const [enrollmentId, groupId] of movedTo) byGroup.set(groupId, [...(byGroup.get(groupId) ?? []), enrollmentId]);
  for (const [groupId, enrollmentIds] of byGroup) await setEnrollmentGroup(sql, enrollmentIds, groupId);
}

/** The customer of the sale's customer_key, else of its click_id, both within the program. */
function findCustomer(
  context: Pick<BatchContext, 'customersByKey' | 'customersByClick'>,
  programId: number,
  request: SaleRequest,
): AttributableCustomer | undefined {
  return (
    (request.customer_key !== undefined && context.customersByKey.get(programKey(programId, request.customer_key))) ||
    (request.click_id !== undefined && context.customersByClick.get(programKey(programId, request.click_id))) ||
    undefined
  );
}

/**
 * customer_key first, click_id as fallback, the promotion code last, all within the program
 * (docs/sales.md#attribution). A code creates the sale's customer, a conversion bound to the
 * code's partner (docs/promotion-codes.md#attribution-by-code); `code` is the code that attributed.
 */
function attribute(
  context: BatchContext,
  sale: PendingSale,
  writes: BatchWrites,
  nextId: (table: string) => number,
  now: Date,
): { customer: AttributableCustomer; code?: EnrolledCode } | Refused {
  const { source: { programId }, request } = sale;
  const found = findCustomer(context, programId, request);
  if (found) return found.enrollment_status === 'active' ? { customer: found } : { kind: 'refused', reason: 'partner_inactive', customerId: found.id };
  const ref = codeRefOf(sale);
  const code = ref === undefined ? undefined : context.codes.get(codeRefKey(programId, ref));
  if (code?.enrollment_status !== 'active') {
    return { kind: 'refused', reason: 'no_attribution', customerKey: request.customer_key ?? null, clickId: request.click_id ?? null, couponCode: request.coupon_code ?? null };
  }
  const row: CustomerRow = {
    id: nextId('customers'),
    program_id: programId,
    customer_key: request.customer_key ?? `code:${request.transaction_id}`,
    email: null,
    name: null,
    click_id: null,
    click_ref: null,
    partner_program_id: code.partner_program_id,
    provider_customer_id: null,
    signup_date: now,
    attributed_from: now,
    first_purchase_date: now,
    status: 'conversion',
  };
  writes.customers.push(row);
  const customer: AttributableCustomer = { ...row, enrollment_status: 'active', partner_id: code.partner_id, partner_email: null, group_id: code.group_id };
  context.customersByKey.set(programKey(programId, row.customer_key), customer);
  return { customer, code };
}

/** Live sales require transaction_id and amount_cents; test sales validate them only when present. */
function missingLiveFields(request: SaleRequest): string[] {
  const missing: string[] = [];
  if (request.transaction_id === undefined) missing.push('transaction_id');
  if (request.amount_cents === undefined) missing.push('amount_cents');
  return missing;
}
