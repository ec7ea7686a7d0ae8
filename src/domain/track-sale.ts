import { AppError, invalidRequest } from '../errors.js';
import type { Sql, Store } from '../store/db.js';
import * as sales from '../store/sales.js';
import type { CommissionRow, SaleEventRow, SaleMode, TestSaleRow, TransactionRow } from '../store/sales.js';
import * as tracking from '../store/tracking.js';
import type { AttributableCustomer } from '../store/tracking.js';
import { commissionCents, holdUntil, renewalEarnsCommission, withinAttributionWindow } from './commission.js';
import type { Deps } from './deps.js';
import { cachedPrograms, programNotFound, type CachedProgram } from './program-cache.js';
import { CURRENCIES, type Currency, missingLiveFields, type SaleRequest } from './sale-request.js';
import { findCustomersByClickIds } from './tracking.js';
import { batched, type Outcome as WriteOutcome } from './write-batcher.js';

/** Who reports the sale: the API key's program and mode, or the webhook's program. */
export type SaleSource = { programId: number; apiKeyId: number | null; keyMode: SaleMode; source: 'api' | 'stripe' };

export type LiveSaleResult = { success: true; sale_id: number | null; commission_id: number | null; message: string };
export type TestSaleResult = {
  success: true;
  message: string;
  data: { eventId: number; programId: number; test_mode: true };
};
export type SaleResult = LiveSaleResult | TestSaleResult;

/** Test mode by any of its three triggers (§4.1.4). */
export function saleMode(keyMode: SaleMode, request: SaleRequest): SaleMode {
  const test = keyMode === 'test' || request.additional_data?.test_mode === true || request.livemode === false;
  return test ? 'test' : 'live';
}

function currencyOf(request: SaleRequest): Currency {
  const currency = (request.currency ?? 'USD').toUpperCase();
  if (!(CURRENCIES as readonly string[]).includes(currency)) {
    throw new AppError('unsupported_currency', `Currency ${request.currency} is not supported; use USD, EUR or VND`, {
      currency: request.currency,
      supported: CURRENCIES,
    });
  }
  return currency as Currency;
}

/**
 * Records a sale in the order of DECISIONS §3 (steps 3–8; authorization and rate limiting happen
 * before): validation and currency here, then duplicate, attribution, window, and the sale with its
 * commission in the writer's transaction. Shared by the sale endpoint and the payment webhooks.
 */
export async function trackSale(deps: Deps, source: SaleSource, request: SaleRequest): Promise<SaleResult> {
  return recordSale(deps, pendingSale(source, request));
}

/**
 * A sale that passed the checks needing no store (validation of live fields, currency), ready for
 * recordSales. `customer` is its request's customer_key already read in this transaction (the
 * webhooks attribute in their own order first): it spares the lookup, not the attribution checks.
 */
export type PendingSale = { source: SaleSource; request: SaleRequest; mode: SaleMode; currency: Currency; customer?: AttributableCustomer };
type Outcome = WriteOutcome<SaleResult>;

/** Throws the AppError the sale is refused with before any lookup. */
export function pendingSale(source: SaleSource, request: SaleRequest): PendingSale {
  const mode = saleMode(source.keyMode, request);
  if (mode === 'live') {
    const missing = missingLiveFields(request);
    if (missing.length > 0) throw invalidRequest(missing.map((field) => ({ field, message: 'Required' })));
  }
  return { source, request, mode, currency: currencyOf(request) };
}

/** Everything a batch needs from the store, read in a fixed number of round trips. */
type BatchContext = {
  seen: Map<string, number | null>;
  programs: Map<number, CachedProgram>;
  customersByKey: Map<string, AttributableCustomer>;
  customersByClick: Map<string, AttributableCustomer>;
  firstSubscriptionSale: Map<string, Date>;
};

const recordSale = batched(recordSales);

/** What deciding the batch needs; `seen` is the ledger entries recordSales looked up (none on a first run). */
async function loadContext(store: Store, sql: Sql, batch: PendingSale[], seen: BatchContext['seen']): Promise<BatchContext> {
  const live = batch.filter((s) => s.mode === 'live');
  const programIds = [...new Set(batch.map((s) => s.source.programId))];
  const known = live.flatMap((s) => s.customer ?? []);
  const byKey = live.flatMap((s) =>
    s.customer || s.request.customer_key === undefined ? [] : [{ programId: s.source.programId, customerKey: s.request.customer_key }],
  );
  const subscriptionIds = live.flatMap((s) => (s.request.is_recurring && s.request.subscription_id !== undefined ? [s.request.subscription_id] : []));

  // One connection runs one statement at a time (DUCKDB.md), so these reads are sequential.
  const programs = await cachedPrograms(store, sql, programIds);
  const customersByKey = await tracking.findCustomersByKeys(sql, byKey);
  for (const customer of known) customersByKey.set(tracking.customerRef(customer.program_id, customer.customer_key), customer);
  const firstSales = await sales.firstSubscriptionSales(sql, programIds, subscriptionIds);
  // The click id is the fallback: looked up only for the sales whose customer_key found no one.
  const clickIds = live.flatMap((s) => {
    const keyMatched = s.request.customer_key !== undefined && customersByKey.has(tracking.customerRef(s.source.programId, s.request.customer_key));
    return keyMatched || s.request.click_id === undefined ? [] : [s.request.click_id];
  });
  const customersByClick = await findCustomersByClickIds(sql, clickIds);
  return { seen, programs, customersByKey, customersByClick, firstSubscriptionSale: firstSales };
}

/** Rows a batch writes, gathered while deciding each sale in arrival order. */
type BatchWrites = {
  transactions: TransactionRow[];
  saleEvents: SaleEventRow[];
  commissions: CommissionRow[];
  testSales: TestSaleRow[];
  converted: Set<number>;
};

/**
 * A batch of sales in the writer's transaction (a RecordBatch; the payment webhooks record theirs
 * inside their own batch). Its first run leaves duplicates to the ledger's primary key,
 * which fails the append of a transaction id already recorded (rare: a merchant's retry); a run
 * after a failure looks every id up first, so the duplicate gets its 409 and the rest is recorded.
 */
export async function recordSales(deps: Deps, sql: Sql, batch: PendingSale[], { afterFailure: lookUpLedger }: { afterFailure: boolean }): Promise<Outcome[]> {
  const now = deps.clock.now();
  const keys = batch.map(transactionKeyOf);
  const seen = lookUpLedger ? await sales.findTransactions(sql, keys.filter((key) => key !== undefined)) : new Map<string, number | null>();
  const context = await loadContext(deps.store, sql, batch, seen);
  const writes: BatchWrites = { transactions: [], saleEvents: [], commissions: [], testSales: [], converted: new Set() };
  const nextId = await deps.store.idAllocator(sql, ['sale_events', 'commissions', 'test_sale_events']);
  const outcomes = batch.map((sale): Outcome => {
    try {
      return { ok: true, value: decide(sale, context, writes, nextId, now) };
    } catch (error) {
      if (error instanceof AppError) return { ok: false, error };
      throw error;
    }
  });
  if (!lookUpLedger) await answerDuplicates(sql, batch, keys, outcomes);
  await sales.insertTransactions(sql, writes.transactions);
  await sales.insertSaleEvents(sql, writes.saleEvents);
  await sales.insertCommissions(sql, writes.commissions);
  await sales.insertTestSales(sql, writes.testSales);
  await tracking.markConverted(sql, [...writes.converted], now);
  return outcomes;
}

const transactionKeyOf = ({ source, mode, request }: PendingSale) =>
  request.transaction_id === undefined ? undefined : sales.transactionKey(source.programId, mode, request.transaction_id);

const duplicateTransaction = (request: SaleRequest, saleId: number | null) =>
  new AppError('duplicate_transaction', `Transaction ${request.transaction_id} was already recorded`, { sale_id: saleId });

/**
 * Without the ledger lookup a sale refused for another reason (no attribution) may be a resend,
 * and a duplicate is answered first (DECISIONS §3): the refused sales' ids are looked up, and one
 * already recorded answers 409 instead. Refused sales wrote nothing, so nothing else changes.
 */
async function answerDuplicates(sql: Sql, batch: PendingSale[], keys: Array<string | undefined>, outcomes: Outcome[]): Promise<void> {
  const refused = outcomes.flatMap((outcome, i) => (!outcome.ok && keys[i] !== undefined ? [i] : []));
  if (refused.length === 0) return;
  const seen = await sales.findTransactions(sql, refused.map((i) => keys[i]!));
  for (const i of refused) {
    if (seen.has(keys[i]!)) outcomes[i] = { ok: false, error: duplicateTransaction(batch[i].request, seen.get(keys[i]!)!) };
  }
}

/** One sale's outcome, given what the store holds and what earlier sales of the batch decided. */
function decide(
  sale: PendingSale,
  context: BatchContext,
  writes: BatchWrites,
  nextId: (table: string) => number,
  now: Date,
): SaleResult {
  const { source, request, mode, currency } = sale;
  const txnKey = transactionKeyOf(sale);
  if (txnKey !== undefined && context.seen.has(txnKey)) throw duplicateTransaction(request, context.seen.get(txnKey)!);
  const remember = (saleId: number | null) => {
    if (txnKey === undefined) return;
    context.seen.set(txnKey, saleId);
    writes.transactions.push({ txn_key: txnKey, program_id: source.programId, mode, transaction_id: request.transaction_id!, sale_id: saleId, created_at: now });
  };

  if (mode === 'test') {
    const id = nextId('test_sale_events');
    writes.testSales.push({
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
    });
    remember(id);
    return { success: true, message: 'Test sale recorded; no commission created', data: { eventId: id, programId: source.programId, test_mode: true } };
  }

  const cached = context.programs.get(source.programId);
  if (!cached) throw programNotFound(source.programId);
  const { program, rules } = cached;
  const customer = attribute(context, source.programId, request);

  if (!withinAttributionWindow(customer.attributed_from, program.attribution_window_days, now)) {
    remember(null);
    return { success: true, sale_id: null, commission_id: null, message: 'Attribution window expired; no sale or commission recorded' };
  }

  const saleId = nextId('sale_events');
  const isRecurring = request.is_recurring ?? false;
  const subscriptionKey = request.subscription_id === undefined ? undefined : sales.subscriptionKey(program.id, request.subscription_id);
  const earnsCommission =
    !isRecurring ||
    renewalEarnsCommission(program.recurring_months, subscriptionKey === undefined ? undefined : context.firstSubscriptionSale.get(subscriptionKey), now);
  writes.saleEvents.push({
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
  });
  remember(saleId);
  if (subscriptionKey !== undefined && !context.firstSubscriptionSale.has(subscriptionKey)) context.firstSubscriptionSale.set(subscriptionKey, now);
  if (customer.status === 'lead') writes.converted.add(customer.id);

  if (!earnsCommission) {
    return { success: true, sale_id: saleId, commission_id: null, message: 'Sale recorded; the recurring commission period has ended' };
  }
  const rule = (request.product_id !== undefined && rules.get(request.product_id)) || {
    type: program.commission_type,
    value: program.commission_value,
  };
  const commissionId = nextId('commissions');
  writes.commissions.push({
    id: commissionId,
    program_id: program.id,
    sale_id: saleId,
    partner_program_id: customer.partner_program_id,
    amount_cents: commissionCents(request.amount_cents!, rule),
    currency,
    status: 'pending',
    hold_until: holdUntil(now, program.hold_days),
    created_at: now,
  });
  return { success: true, sale_id: saleId, commission_id: commissionId, message: 'Sale and commission recorded' };
}

/** customer_key first, click_id as fallback, both within the program (DECISIONS §3). */
function attribute(context: BatchContext, programId: number, request: SaleRequest): AttributableCustomer {
  const customer =
    (request.customer_key !== undefined && context.customersByKey.get(tracking.customerRef(programId, request.customer_key))) ||
    (request.click_id !== undefined && context.customersByClick.get(tracking.inProgram(programId, request.click_id))) ||
    undefined;
  if (!customer) {
    throw new AppError('no_attribution', 'Neither customer_key nor click_id matches a customer of this program', {
      customer_key: request.customer_key ?? null,
      click_id: request.click_id ?? null,
    });
  }
  if (customer.enrollment_status !== 'active') {
    throw new AppError('no_attribution', "The customer's partner is not active in this program", { customer_id: customer.id });
  }
  return customer;
}
