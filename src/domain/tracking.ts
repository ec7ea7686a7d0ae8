import type { ClickRequest, LeadRequest } from '../api/index.js';
import type { ApiKeyRow } from '../store/api-keys.js';
import type { Sql } from '../store/db.js';
import { programKey } from '../store/program-key.js';
import * as tracking from '../store/tracking.js';
import type { ClickRow, CustomerRow } from '../store/tracking.js';
import type { Deps } from './deps.js';
import { emit } from './outbound/events.js';
import { leadEvent } from './outbound/payloads.js';
import { cachedEnrollments } from './enrollment-cache.js';
import { randomToken } from './secrets.js';
import { UniqueClicks, type ClickDeps, type Visitor } from './unique-clicks.js';
import { batched, type BatchRun } from './write-batcher.js';
import { codeRefKey, findAttributingCodes } from './promotion-codes.js';
import { rewardLeads } from './lead-rewards.js';

/**
 * Who sends a click: a browser, known by its address and User-Agent, or the merchant's backend
 * with the program's API key, speaking for the visitor it may name in the body (docs/tracking.md#post-apiv1trackclick).
 */
export type ClickSender = { apiKey: ApiKeyRow | null; ip: string; userAgent: string | undefined };

export type ClickOutcome =
  | { kind: 'recorded'; clickId: string }
  /** The visitor followed this link within the unique-click window: the click id it got then, nothing stored. */
  | { kind: 'repeated'; clickId: string }
  | { kind: 'unknown_ref' }
  /** `ip` or `user_agent` sent without the program's API key. */
  | { kind: 'visitor_needs_key'; fields: string[] };

type PendingClick = {
  ref: string;
  landingUrl: string | null;
  referrer: string | null;
  isTest: boolean;
  /** A server-side click: the key's program, which must own the ref. */
  programId: number | null;
  /** Test clicks and server-side clicks that name no visitor have none: they are never deduplicated. */
  visitor: Visitor | null;
};

// Click ids carry their row id so lookups seek instead of scanning: ck_<id>_<secret>.
const CLICK_ID = /^ck_(\d{1,15})_[A-Za-z0-9_-]{16,64}$/;

function clickRowId(clickId: string): number | undefined {
  const match = CLICK_ID.exec(clickId);
  return match ? Number(match[1]) : undefined;
}

/**
 * The earliest customer of each click id (the partner_click_id value), keyed by programKey(program,
 * click id). Found by the row id the value embeds (a scan of an integer column) and keyed by the
 * customer's click_ref, so only the whole value within the customer's program finds it: a forged or
 * mistyped id attributes nothing. One statement for a batch.
 */
export async function findCustomersByClickIds(sql: Sql, clickIds: string[]): Promise<tracking.Matches> {
  const found: tracking.Matches = new Map();
  for (const customer of (await tracking.findCustomersByClicks(sql, clickIds.flatMap((id) => clickRowId(id) ?? []))).values()) {
    if (customer.click_ref !== null) found.set(programKey(customer.program_id, customer.click_ref), customer);
  }
  return found;
}

/**
 * A batch of clicks: the enrollments of their referral codes (cached; a statement for the codes not
 * yet seen), the unique-click check (docs/tracking.md#unique-clicks) from memory or one statement over the
 * window's rows, then one append.
 */
async function recordClicks(deps: ClickDeps, sql: Sql, clicks: PendingClick[], run: BatchRun): Promise<ClickOutcome[]> {
  const { store, clock } = deps;
  const enrollments = await cachedEnrollments(store, sql, [...new Set(clicks.map((c) => c.ref))]);
  const unique = await UniqueClicks.open(deps, sql, run);
  const decided = clicks.map((click) => {
    const enrollment = enrollments.get(click.ref);
    const known = enrollment?.status === 'active' && (click.programId === null || click.programId === enrollment.program_id);
    if (!known) return undefined;
    const hash = click.visitor && unique.hash(click.visitor);
    return { click, enrollment, visit: hash === null ? null : { enrollmentId: enrollment.id, hash } };
  });
  await unique.load(sql, decided.flatMap((d) => d?.visit ?? []));
  const nextId = await store.idAllocator(sql, { clicks: decided.length });
  const now = clock.now();
  const rows: ClickRow[] = [];
  const outcomes = decided.map((d): ClickOutcome => {
    if (!d) return { kind: 'unknown_ref' };
    const { click, enrollment, visit } = d;
    const earlier = visit && unique.earlierClick(visit);
    if (earlier) return { kind: 'repeated', clickId: earlier };
    const id = nextId('clicks');
    const row: ClickRow = {
      id,
      click_id: randomToken(`ck_${id}_`, 16),
      program_id: enrollment.program_id,
      partner_program_id: enrollment.id,
      landing_url: click.landingUrl,
      referrer: click.referrer,
      is_test: click.isTest,
      created_at: now,
      visitor_hash: visit?.hash ?? null,
    };
    rows.push(row);
    if (visit) unique.recorded(visit, row);
    return { kind: 'recorded', clickId: row.click_id };
  });
  await tracking.appendClicks(sql, rows);
  return outcomes;
}

// Nothing a click batch reads may change before it commits but its visitors' clicks, which it locks.
const recordClick = batched(recordClicks, { isolation: 'read committed' });

/**
 * POST /api/v1/track/click: a click on an active partner's referral link (docs/tracking.md#post-apiv1trackclick).
 * A browser is the visitor; a server-side click names its visitor with `ip` and `user_agent`.
 */
export function trackClick(deps: ClickDeps, sender: ClickSender, input: ClickRequest): Promise<ClickOutcome> {
  const { apiKey } = sender;
  if (!apiKey) {
    const fields = (['ip', 'user_agent'] as const).filter((field) => input[field] !== undefined);
    if (fields.length > 0) return Promise.resolve({ kind: 'visitor_needs_key', fields });
  }
  const isTest = input.test === true || apiKey?.mode === 'test';
  const visitor = apiKey ? (input.ip === undefined ? null : { ip: input.ip, userAgent: input.user_agent ?? '' }) : { ip: sender.ip, userAgent: sender.userAgent ?? '' };
  return recordClick(deps, {
    ref: input.ref,
    landingUrl: input.landing_url ?? null,
    referrer: input.referrer ?? null,
    isTest,
    programId: apiKey?.program_id ?? null,
    visitor: isTest ? null : visitor,
  });
}

export type LeadOutcome =
  | { kind: 'recorded'; customerId: number }
  /** The customer key was tracked before: its customer, unchanged. */
  | { kind: 'existing'; customerId: number }
  | { kind: 'test_mode' }
  | { kind: 'no_attribution' };

type PendingLead = { programId: number; input: LeadRequest };

/**
 * A batch of leads: the customer keys, the clicks and the promotion codes of leads without a click
 * (docs/promotion-codes.md#attribution-by-code) looked up in one statement each, then one append.
 * A key sent twice in one batch is decided in order, so the second finds the first.
 */
async function recordLeads(deps: Deps, sql: Sql, leads: PendingLead[]): Promise<LeadOutcome[]> {
  const { store, clock } = deps;
  const existing = await tracking.findCustomersByKeys(sql, leads.map(({ programId, input }) => ({ programId, customerKey: input.customer_key })));
  const known = new Map([...existing].map(([key, customer]) => [key, customer.id]));
  const clicks = new Map(
    (await tracking.findClicks(sql, leads.flatMap(({ input }) => (input.click_id === undefined ? [] : (clickRowId(input.click_id) ?? []))))).map((c) => [c.click_id, c]),
  );
  const clickOf = ({ programId, input }: PendingLead) => {
    const click = input.click_id === undefined ? undefined : clicks.get(input.click_id);
    return click?.program_id === programId ? click : undefined;
  };
  const codes = await findAttributingCodes(
    sql,
    leads.flatMap((lead) => (lead.input.coupon_code === undefined || clickOf(lead) ? [] : [{ programId: lead.programId, ref: { code: lead.input.coupon_code } }])),
  );
  const nextId = await store.idAllocator(sql, { customers: leads.length });
  const now = clock.now();
  const rows: CustomerRow[] = [];
  const outcomes = leads.map((lead): LeadOutcome => {
    const { programId, input } = lead;
    const key = programKey(programId, input.customer_key);
    const customerId = known.get(key);
    if (customerId !== undefined) return { kind: 'existing', customerId };
    const click = clickOf(lead);
    const code = click || input.coupon_code === undefined ? undefined : codes.get(codeRefKey(programId, { code: input.coupon_code }));
    if (!click && code?.enrollment_status !== 'active') return { kind: 'no_attribution' };
    const id = nextId('customers');
    known.set(key, id);
    rows.push({
      id,
      program_id: programId,
      customer_key: input.customer_key,
      email: input.email?.toLowerCase() ?? null,
      name: input.name ?? null,
      click_id: click?.id ?? null,
      click_ref: click?.click_id ?? null,
      partner_program_id: click?.partner_program_id ?? code!.partner_program_id,
      provider_customer_id: null,
      signup_date: now,
      attributed_from: click?.created_at ?? now,
      first_purchase_date: null,
      status: 'lead',
    });
    return { kind: 'recorded', customerId: id };
  });
  await tracking.appendCustomers(sql, rows);
  await emit(deps, sql, rows.map(leadEvent));
  await rewardLeads(deps, sql, rows);
  return outcomes;
}

const recordLead = batched(recordLeads);

/** POST /api/v1/track/lead: binds the merchant's customer key to the partner of a click (docs/tracking.md#post-apiv1tracklead). */
export async function trackLead(deps: Deps, apiKey: ApiKeyRow, input: LeadRequest): Promise<LeadOutcome> {
  if (apiKey.mode === 'test') return { kind: 'test_mode' };
  return recordLead(deps, { programId: apiKey.program_id, input });
}
