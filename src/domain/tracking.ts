import { AppError } from '../errors.js';
import type { ApiKeyRow } from '../store/api-keys.js';
import type { Sql } from '../store/db.js';
import { findPartnerProgramByRef } from '../store/partners.js';
import * as tracking from '../store/tracking.js';
import type { ClickRow } from '../store/tracking.js';
import type { Deps } from './deps.js';
import { randomToken } from './secrets.js';

export type ClickInput = { ref: string; landing_url?: string; referrer?: string; test?: boolean };

// Click ids carry their row id so lookups seek instead of scanning: ck_<id>_<secret>.
const CLICK_ID = /^ck_(\d{1,15})_[A-Za-z0-9_-]{16,64}$/;

export function clickRowId(clickId: string): number | undefined {
  const match = CLICK_ID.exec(clickId);
  return match ? Number(match[1]) : undefined;
}

/**
 * The earliest customer of each click id (the partner_click_id value), keyed by inProgram(program,
 * click id). Found by the row id the value embeds (a scan of an integer column) and keyed by the
 * customer's click_ref, so only the whole value within the customer's program finds it: a forged or
 * mistyped id attributes nothing. One statement for a batch.
 */
export async function findCustomersByClickIds(sql: Sql, clickIds: string[]): Promise<tracking.Matches> {
  const found: tracking.Matches = new Map();
  for (const customer of (await tracking.findCustomersByClicks(sql, clickIds.flatMap((id) => clickRowId(id) ?? []))).values()) {
    if (customer.click_ref !== null) found.set(tracking.inProgram(customer.program_id, customer.click_ref), customer);
  }
  return found;
}

/** Finds a click by the value of the partner_click_id cookie. */
export async function findClick(sql: Sql, clickId: string): Promise<ClickRow | undefined> {
  const rowId = clickRowId(clickId);
  return rowId === undefined ? undefined : tracking.findClick(sql, rowId, clickId);
}

export async function trackClick({ store, clock }: Deps, input: ClickInput) {
  return store.write(async (sql) => {
    const enrollment = await findPartnerProgramByRef(sql, input.ref);
    if (!enrollment || enrollment.status !== 'active') {
      throw new AppError('not_found', `No active referral link with ref ${input.ref}`);
    }
    const id = await store.nextId(sql, 'clicks');
    const click: ClickRow = {
      id,
      click_id: randomToken(`ck_${id}_`, 16),
      program_id: enrollment.program_id,
      partner_program_id: enrollment.id,
      landing_url: input.landing_url ?? null,
      referrer: input.referrer ?? null,
      is_test: input.test ?? false,
      created_at: clock.now(),
    };
    await tracking.insertClick(sql, click);
    return { click_id: click.click_id };
  });
}

export type LeadInput = { customer_key: string; click_id: string; email?: string; name?: string };
export type LeadResult = { success: true; customer_id: number | null; message: string };

/** POST /api/v1/track/lead: binds the merchant's customer key to the partner of a click (DECISIONS §2). */
export async function trackLead({ store, clock }: Deps, apiKey: ApiKeyRow, input: LeadInput): Promise<LeadResult> {
  if (apiKey.mode === 'test') {
    return { success: true, customer_id: null, message: 'Test mode: lead validated, nothing recorded' };
  }
  return store.write<LeadResult>(async (sql) => {
    const existing = await tracking.findCustomerByKey(sql, apiKey.program_id, input.customer_key);
    if (existing) return { success: true, customer_id: existing.id, message: 'Customer already tracked' };

    const click = await findClick(sql, input.click_id);
    if (!click || click.program_id !== apiKey.program_id) {
      throw new AppError('no_attribution', 'click_id does not match a click of this program', { click_id: input.click_id });
    }
    const id = await store.nextId(sql, 'customers');
    await tracking.insertCustomer(sql, {
      id,
      program_id: apiKey.program_id,
      customer_key: input.customer_key,
      email: input.email?.toLowerCase() ?? null,
      name: input.name ?? null,
      click_id: click.id,
      click_ref: click.click_id,
      partner_program_id: click.partner_program_id,
      provider_customer_id: null,
      signup_date: clock.now(),
      attributed_from: click.created_at,
      first_purchase_date: null,
      status: 'lead',
    });
    return { success: true, customer_id: id, message: 'Lead tracked' };
  });
}
