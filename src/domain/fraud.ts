import { utc } from '@date-fns/utc';
import { subDays } from 'date-fns/subDays';
import { DEFAULT_FRAUD_MODES, type FraudMode, type FraudRule } from '../api/constants.js';
import type { Commission, FraudEvent, FraudRules, FraudRulesInput } from '../api/index.js';
import type { Sql, Store } from '../store/db.js';
import * as fraud from '../store/fraud.js';
import type { FraudEventRow } from '../store/fraud.js';
import type { ProgramRow } from '../store/programs.js';
import { viewedProgram, type Viewer } from './access.js';
import { reviewCommissions } from './commissions.js';
import type { Deps } from './deps.js';
import { disposableDomain } from './disposable-domains.js';
import { ForgetfulCache, perStore } from './store-cache.js';

/*
 * The fraud rules (docs/fraud.md): checked on each live sale's commission inside the sale batch,
 * from what the batch already read; held commissions are released or rejected by members.
 */

export type FraudModes = Readonly<Record<FraudRule, FraudMode>>;

const modesOf = new WeakMap<ProgramRow, FraudModes>();

/** A program's mode of each rule: its stored choices over the defaults (parsed once per cached program row). */
export function fraudModes(program: ProgramRow): FraudModes {
  const cached = modesOf.get(program);
  if (cached) return cached;
  const modes: FraudModes = { ...DEFAULT_FRAUD_MODES, ...(program.fraud_rules ? JSON.parse(program.fraud_rules) : {}) };
  modesOf.set(program, modes);
  return modes;
}

/** The API's name of each rule (docs/fraud.md#the-rules). */
const API_NAMES = { self_referral: 'selfReferral', disposable_email: 'disposableEmail', fast_conversion: 'fastConversion', refund_rate: 'refundRate' } as const;

/** A program's rules as the API shows them. */
export function fraudRulesView(program: ProgramRow): FraudRules {
  const modes = fraudModes(program);
  return Object.fromEntries((Object.keys(API_NAMES) as FraudRule[]).map((rule) => [API_NAMES[rule], modes[rule]])) as FraudRules;
}

/** The stored fraud_rules after a create or update names some rules: the stored choices with these over them. */
export function storedFraudRules(current: string | null, changes: FraudRulesInput | undefined): string | null {
  const named = (Object.keys(API_NAMES) as FraudRule[]).flatMap((rule) => {
    const mode = changes?.[API_NAMES[rule]];
    return mode === undefined ? [] : [[rule, mode] as const];
  });
  if (named.length === 0) return current;
  return JSON.stringify({ ...(current ? JSON.parse(current) : {}), ...Object.fromEntries(named) });
}

const GMAIL = new Set(['gmail.com', 'googlemail.com']);

/** An e-mail as self_referral compares it (docs/fraud.md#e-mail-normalization). */
export function normalizeEmail(email: string): string {
  const lower = email.toLowerCase();
  const at = lower.lastIndexOf('@');
  const [local, domain] = [lower.slice(0, at), lower.slice(at + 1)];
  if (!GMAIL.has(domain)) return lower;
  return `${local.split('+')[0].replaceAll('.', '')}@gmail.com`;
}

/** What the rules look at for one sale. */
export type FraudSubject = {
  customerEmail: string | null;
  partnerEmail: string | null;
  /** The customer's click time; null for a customer without a click. */
  clickAt: Date | null;
  receivedAt: Date;
  /** The partner's sales of the last 30 days and how many were refunded; absent when the rule is off. */
  refunds?: RefundRate;
};

export type FraudFinding = { rule: FraudRule; action: 'flag' | 'hold'; evidence: Record<string, unknown> };

const FAST_CONVERSION_MS = 10_000;
const REFUND_RATE = { days: 30, minSales: 10, maxShare: 0.3 } as const;

/** What each rule sees, or null when it does not fire. */
const RULES: Record<FraudRule, (s: FraudSubject) => Record<string, unknown> | null> = {
  self_referral: (s) => {
    if (s.customerEmail === null || s.partnerEmail === null) return null;
    const [customerEmail, partnerEmail] = [normalizeEmail(s.customerEmail), normalizeEmail(s.partnerEmail)];
    return customerEmail === partnerEmail ? { customerEmail, partnerEmail } : null;
  },
  disposable_email: (s) => {
    const domain = s.customerEmail === null ? undefined : disposableDomain(s.customerEmail.slice(s.customerEmail.lastIndexOf('@') + 1));
    return domain === undefined ? null : { customerEmail: s.customerEmail, domain };
  },
  fast_conversion: (s) => {
    if (s.clickAt === null) return null;
    const ms = s.receivedAt.getTime() - s.clickAt.getTime();
    return ms < FAST_CONVERSION_MS ? { clickAt: s.clickAt.toISOString(), receivedAt: s.receivedAt.toISOString(), seconds: ms / 1000 } : null;
  },
  refund_rate: (s) => {
    if (!s.refunds || s.refunds.sales < REFUND_RATE.minSales || s.refunds.refunded <= s.refunds.sales * REFUND_RATE.maxShare) return null;
    const ratePercent = Math.round((s.refunds.refunded * 1000) / s.refunds.sales) / 10;
    return { sales: s.refunds.sales, refunded: s.refunds.refunded, ratePercent, sinceDays: REFUND_RATE.days };
  },
};

/** The rules that fire on a sale, in the program's modes (rules `off` are not looked at). */
export function checkFraud(modes: FraudModes, subject: FraudSubject): FraudFinding[] {
  return (Object.keys(RULES) as FraudRule[]).flatMap((rule) => {
    const mode = modes[rule];
    if (mode === 'off') return [];
    const evidence = RULES[rule](subject);
    return evidence === null ? [] : [{ rule, action: mode, evidence }];
  });
}

export type RefundRate = { sales: number; refunded: number };

// The refund rates of enrollments, read for a sale batch and kept a minute: the batch's own sales
// are added after its COMMIT and a refund forgets its enrollment, so what expires is only sales
// leaving the 30-day window (docs/fraud.md#rules-on-the-write-path).
const REFUND_RATE_CACHE_MS = 60_000;
const ratesOf = perStore(() => new ForgetfulCache<number, RefundRate>(100_000, REFUND_RATE_CACHE_MS));

/** The refund rates of these enrollments over the 30 days before `now`, reading those not cached in one statement. */
export function refundRates(store: Store, sql: Sql, enrollmentIds: number[], now: Date): Promise<Map<number, RefundRate>> {
  return ratesOf(store).getMany([...new Set(enrollmentIds)], async (missing) => {
    const rows = await fraud.refundRates(sql, missing, subDays(now, REFUND_RATE.days, { in: utc }));
    const found = new Map(rows.map((r) => [r.partner_program_id, { sales: r.sales, refunded: r.refunded }]));
    return missing.map((id) => [id, found.get(id) ?? { sales: 0, refunded: 0 }] as const);
  });
}

/** After a sale batch's COMMIT: its sales count in the cached rates of their enrollments. */
export function countSales(store: Store, enrollmentIds: number[]): void {
  const cache = ratesOf(store);
  for (const id of enrollmentIds) {
    const rate = cache.get(id);
    if (rate) rate.sales++;
  }
}

/** A refund changes its enrollment's rate: read it again at its next sale. */
export function forgetRefundRates(store: Store, enrollmentIds: number[]): void {
  if (enrollmentIds.length === 0) return;
  const ids = new Set(enrollmentIds);
  ratesOf(store).forget((id) => ids.has(id));
}

/** A finding as the row the sale batch writes; its id is given when the batch knows how many there are. */
export function fraudEventRow(
  finding: FraudFinding,
  at: { programId: number; commissionId: number; saleId: number; enrollmentId: number; now: Date },
): Omit<FraudEventRow, 'id'> {
  return {
    program_id: at.programId, commission_id: at.commissionId, sale_id: at.saleId, partner_program_id: at.enrollmentId, rule: finding.rule,
    action: finding.action, evidence: JSON.stringify(finding.evidence), created_at: at.now,
  };
}

/** Writes a batch's fraud events, with ids from one reservation. */
export async function storeFraudEvents(store: Store, sql: Sql, rows: Array<Omit<FraudEventRow, 'id'>>): Promise<void> {
  if (rows.length === 0) return;
  const first = await store.nextId(sql, 'fraud_events', rows.length);
  await fraud.appendFraudEvents(sql, rows.map((row, i) => ({ id: first + i, ...row })));
}

function fraudEventView(e: fraud.FraudEventView): FraudEvent {
  return {
    id: e.id,
    commissionId: e.commission_id,
    saleId: e.sale_id,
    partnerId: e.partner_id,
    partnerName: e.partner_name,
    rule: e.rule as FraudRule,
    action: e.action,
    evidence: JSON.parse(e.evidence),
    createdAt: e.created_at.toISOString(),
    commissionStatus: e.commission_status as FraudEvent['commissionStatus'],
    amountCents: e.amount_cents,
    currency: e.currency,
  };
}

/** GET /api/programs/:programId/fraud-events: the events of held commissions, or all, newest first. */
export async function listFraudEvents({ store }: Deps, viewer: Viewer, programId: number, status: 'held' | 'all'): Promise<FraudEvent[]> {
  return store.read(async (sql) => {
    await viewedProgram(store, sql, viewer, programId);
    return (await fraud.listFraudEvents(sql, programId, status === 'held')).map(fraudEventView);
  });
}

/** POST /api/programs/:programId/fraud/release and /reject: held commissions only, all or none (docs/fraud.md#held-commissions). */
export function resolveHeld(deps: Deps, viewer: Viewer, programId: number, resolution: 'release' | 'reject', input: { commissionIds: number[]; reason?: string }): Promise<Commission[]> {
  return reviewCommissions(deps, viewer, programId, resolution === 'release' ? 'release' : 'reject_held', { ids: input.commissionIds, reason: input.reason });
}
