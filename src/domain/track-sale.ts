import { AppError, invalidRequest } from '../errors.js';
import type { Sql } from '../store/db.js';
import { findPartnerProgram } from '../store/partners.js';
import { findProductRule } from '../store/programs.js';
import * as sales from '../store/sales.js';
import type { SaleMode } from '../store/sales.js';
import * as tracking from '../store/tracking.js';
import type { CustomerRow } from '../store/tracking.js';
import { commissionCents, holdUntil, renewalEarnsCommission, withinAttributionWindow } from './commission.js';
import type { Deps } from './deps.js';
import { requireProgram } from './provisioning.js';
import { CURRENCIES, type Currency, missingLiveFields, type SaleRequest } from './sale-request.js';
import { findClick } from './tracking.js';

/** Who reports the sale: the API key's program and mode, or the webhook's program. */
export type SaleSource = { programId: number; apiKeyId: number | null; keyMode: SaleMode; source: 'api' | 'stripe' };

export type LiveSaleResult = { success: true; sale_id: number | null; commission_id: number | null; message: string };
export type TestSaleResult = {
  success: true;
  message: string;
  data: { eventId: number; programId: number; test_mode: true };
};

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
 * before): validation, currency, duplicate, attribution, window, then sale + commission in one
 * transaction. Shared by the sale endpoint and the payment-provider webhooks.
 */
export async function trackSale(deps: Deps, source: SaleSource, request: SaleRequest): Promise<LiveSaleResult | TestSaleResult> {
  const mode = saleMode(source.keyMode, request);
  if (mode === 'live') {
    const missing = missingLiveFields(request);
    if (missing.length > 0) throw invalidRequest(missing.map((field) => ({ field, message: 'Required' })));
  }
  const currency = currencyOf(request);
  return deps.store.write(async (sql) => {
    if (request.transaction_id !== undefined) await rejectDuplicate(sql, source.programId, mode, request.transaction_id);
    return mode === 'test'
      ? recordTestSale(deps, sql, source, request, currency)
      : recordLiveSale(deps, sql, source, request as SaleRequest & { transaction_id: string; amount_cents: number }, currency);
  });
}

async function rejectDuplicate(sql: Sql, programId: number, mode: SaleMode, transactionId: string): Promise<void> {
  const seen = await sales.findTransaction(sql, programId, mode, transactionId);
  if (seen) {
    throw new AppError('duplicate_transaction', `Transaction ${transactionId} was already recorded`, { sale_id: seen.sale_id });
  }
}

async function recordTestSale(deps: Deps, sql: Sql, source: SaleSource, request: SaleRequest, currency: Currency): Promise<TestSaleResult> {
  const now = deps.clock.now();
  const id = await deps.store.nextId(sql, 'test_sale_events');
  await sales.insertTestSale(sql, {
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
  if (request.transaction_id !== undefined) await sales.insertTransaction(sql, source.programId, 'test', request.transaction_id, id, now);
  return { success: true, message: 'Test sale recorded; no commission created', data: { eventId: id, programId: source.programId, test_mode: true } };
}

/** customer_key first, click_id as fallback, both within the program (DECISIONS §3). */
export async function attributeCustomer(sql: Sql, programId: number, request: SaleRequest): Promise<CustomerRow> {
  let customer = request.customer_key === undefined ? undefined : await tracking.findCustomerByKey(sql, programId, request.customer_key);
  if (!customer && request.click_id !== undefined) {
    const click = await findClick(sql, request.click_id);
    if (click && click.program_id === programId) customer = await tracking.findCustomerByClick(sql, programId, click.id);
  }
  if (!customer) {
    throw new AppError('no_attribution', 'Neither customer_key nor click_id matches a customer of this program', {
      customer_key: request.customer_key ?? null,
      click_id: request.click_id ?? null,
    });
  }
  const enrollment = await findPartnerProgram(sql, customer.partner_program_id);
  if (!enrollment || enrollment.status !== 'active') {
    throw new AppError('no_attribution', "The customer's partner is not active in this program", { customer_id: customer.id });
  }
  return customer;
}

async function recordLiveSale(
  deps: Deps,
  sql: Sql,
  source: SaleSource,
  request: SaleRequest & { transaction_id: string; amount_cents: number },
  currency: Currency,
): Promise<LiveSaleResult> {
  const { store, clock } = deps;
  const now = clock.now();
  const program = await requireProgram(sql, source.programId);
  const customer = await attributeCustomer(sql, program.id, request);

  const windowStart = (customer.click_id !== null && (await tracking.clickTime(sql, customer.click_id))) || customer.signup_date;
  if (!withinAttributionWindow(windowStart, program.attribution_window_days, now)) {
    await sales.insertTransaction(sql, program.id, 'live', request.transaction_id, null, now);
    return { success: true, sale_id: null, commission_id: null, message: 'Attribution window expired; no sale or commission recorded' };
  }

  const isRecurring = request.is_recurring ?? false;
  const earnsCommission =
    !isRecurring ||
    renewalEarnsCommission(
      program.recurring_months,
      request.subscription_id === undefined ? undefined : await sales.firstSubscriptionSale(sql, program.id, request.subscription_id),
      now,
    );
  const productRule = request.product_id === undefined ? undefined : await findProductRule(sql, program.id, request.product_id);
  const rule = productRule
    ? { type: productRule.commission_type, value: productRule.commission_value }
    : { type: program.commission_type, value: program.commission_value };

  const saleId = await store.nextId(sql, 'sale_events');
  await sales.insertSaleEvent(sql, {
    id: saleId,
    program_id: program.id,
    customer_id: customer.id,
    partner_program_id: customer.partner_program_id,
    transaction_id: request.transaction_id,
    amount_cents: request.amount_cents,
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
  await sales.insertTransaction(sql, program.id, 'live', request.transaction_id, saleId, now);
  if (customer.status === 'lead') await tracking.markConverted(sql, customer.id, now);

  if (!earnsCommission) {
    return { success: true, sale_id: saleId, commission_id: null, message: 'Sale recorded; the recurring commission period has ended' };
  }
  const commissionId = await store.nextId(sql, 'commissions');
  await sales.insertCommission(sql, {
    id: commissionId,
    program_id: program.id,
    sale_id: saleId,
    partner_program_id: customer.partner_program_id,
    amount_cents: commissionCents(request.amount_cents, rule),
    currency,
    status: 'pending',
    hold_until: holdUntil(now, program.hold_days),
    created_at: now,
  });
  return { success: true, sale_id: saleId, commission_id: commissionId, message: 'Sale and commission recorded' };
}
