import type { ApiKey, CommissionInput, CommissionTerms, Enrollment, FraudRulesInput, Partner, Program, ProductRule } from '../api/index.js';
import { AppError } from '../errors.js';
import * as keys from '../store/api-keys.js';
import type { ApiKeyMode, ApiKeyRow } from '../store/api-keys.js';
import { storeAutomaticApprovals } from '../store/commissions.js';
import type { Sql } from '../store/db.js';
import * as members from '../store/members.js';
import * as partners from '../store/partners.js';
import * as programs from '../store/programs.js';
import type { PartnerRow, PartnerStatus, PayoutMethod } from '../store/partners.js';
import type { Approval, CommissionRule, ProductRuleRow, ProgramRow, ProgramSettings } from '../store/programs.js';
import { changingApiKey, creatingApiKeys } from './api-keys.js';
import { changingEnrollments } from './enrollment-cache.js';
import { changingProgram, programNotFound } from './program-cache.js';
import { endSessionsOf, issueSignIn } from './sessions.js';
import type { Deps } from './deps.js';
import { emit } from './outbound/events.js';
import { percentToBasisPoints } from './commission.js';
import { fraudRulesView, storedFraudRules } from './fraud.js';
import { randomCode, randomToken, sha256 } from './secrets.js';

/** A commission rule as the API shows it. */
export function commissionView(rule: CommissionRule): CommissionTerms {
  return rule.type === 'percent' ? { type: 'percent', percent: rule.value / 100 } : { type: 'flat', flatCents: rule.value };
}

function programView(p: ProgramRow, rules: ProductRuleRow[]): Program {
  return {
    id: p.id,
    name: p.name,
    commission: commissionView({ type: p.commission_type, value: p.commission_value }),
    attributionWindowDays: p.attribution_window_days,
    holdDays: p.hold_days,
    recurringMonths: p.recurring_months,
    webhookSecret: p.webhook_secret,
    createdAt: p.created_at.toISOString(),
    productRules: rules.map(ruleView),
    approval: p.approval,
    minPayoutCents: p.min_payout_cents,
    landingUrl: p.landing_url,
    fraudRules: fraudRulesView(p),
    stripeApiKeySet: p.stripe_api_key !== null,
    applicationsOpen: p.applications_open,
    autoApprove: p.auto_approve,
  };
}

function ruleView(r: ProductRuleRow): ProductRule {
  return { programId: r.program_id, productId: r.product_id, commission: commissionView({ type: r.commission_type, value: r.commission_value }) };
}

function keyView(k: ApiKeyRow): ApiKey {
  return { id: k.id, programId: k.program_id, mode: k.mode, prefix: k.prefix, status: k.status, createdAt: k.created_at.toISOString() };
}

/** The commission rule a request names: a flat amount or a percentage, else `fallbackPercent`, else none. */
export function commissionRuleFrom(input: CommissionInput, fallbackPercent?: number): CommissionRule | undefined {
  if (input.commissionFlatCents !== undefined) return { type: 'flat', value: input.commissionFlatCents };
  const percent = input.commissionPercent ?? fallbackPercent;
  return percent === undefined ? undefined : { type: 'percent', value: percentToBasisPoints(percent) };
}

export type NewProgram = {
  name: string;
  commission: CommissionRule;
  attributionWindowDays: number;
  holdDays: number;
  recurringMonths: number | null;
  approval: Approval;
  minPayoutCents: number;
  landingUrl: string | null;
  fraudRules?: FraudRulesInput;
  /** A restricted Stripe API key; null removes it. */
  stripeApiKey?: string | null;
  applicationsOpen: boolean;
  autoApprove: boolean;
};

export async function createProgram({ store, clock }: Deps, input: NewProgram) {
  return creatingApiKeys(store, () =>
    store.transaction(async (sql) => {
      const now = clock.now();
      const row: ProgramRow = {
        id: await store.nextId(sql, 'programs'),
        name: input.name,
        commission_type: input.commission.type,
        commission_value: input.commission.value,
        attribution_window_days: input.attributionWindowDays,
        hold_days: input.holdDays,
        recurring_months: input.recurringMonths,
        webhook_secret: randomToken('whsec_'),
        created_at: now,
        approval: input.approval,
        min_payout_cents: input.minPayoutCents,
        landing_url: input.landingUrl,
        fraud_rules: storedFraudRules(null, input.fraudRules),
        stripe_api_key: input.stripeApiKey ?? null,
        applications_open: input.applicationsOpen,
        auto_approve: input.autoApprove,
      };
      await programs.insertProgram(sql, row);
      const live = await issueKey({ store, clock }, sql, row.id, 'live');
      const test = await issueKey({ store, clock }, sql, row.id, 'test');
      return { ...programView(row, []), apiKey: live.apiKey, testApiKey: test.apiKey };
    }),
  );
}

export async function listPrograms({ store }: Deps) {
  return store.read(async (sql) => (await programs.allPrograms(sql)).map((p) => programView(p, [])));
}

export async function showProgram({ store }: Deps, id: number) {
  return store.read(async (sql) => programView(await requireProgram(sql, id), await programs.listProductRules(sql, id)));
}

export async function requireProgram(sql: Sql, id: number): Promise<ProgramRow> {
  const program = await programs.findProgram(sql, id);
  if (!program) throw programNotFound(id);
  return program;
}

/**
 * PATCH /api/admin/programs/:programId: the settings named change, the others stay. A switch from
 * automatic to manual approval first stores `approved` for every commission that reads as approved,
 * so the switch takes no approval back (docs/refunds-and-payouts.md#program-settings).
 */
export async function updateProgram({ store, clock }: Deps, id: number, changes: Partial<NewProgram>) {
  return changingProgram(store, id, () =>
    store.transaction(async (sql) => {
      const current = await requireProgram(sql, id);
      const commission = changes.commission ?? { type: current.commission_type, value: current.commission_value };
      const next: ProgramSettings = {
        name: changes.name ?? current.name,
        commission_type: commission.type,
        commission_value: commission.value,
        attribution_window_days: changes.attributionWindowDays ?? current.attribution_window_days,
        hold_days: changes.holdDays ?? current.hold_days,
        recurring_months: changes.recurringMonths === undefined ? current.recurring_months : changes.recurringMonths,
        approval: changes.approval ?? current.approval,
        min_payout_cents: changes.minPayoutCents ?? current.min_payout_cents,
        landing_url: changes.landingUrl === undefined ? current.landing_url : changes.landingUrl,
        fraud_rules: storedFraudRules(current.fraud_rules, changes.fraudRules),
        stripe_api_key: changes.stripeApiKey === undefined ? current.stripe_api_key : changes.stripeApiKey,
        applications_open: changes.applicationsOpen ?? current.applications_open,
        auto_approve: changes.autoApprove ?? current.auto_approve,
      };
      if (current.approval === 'auto' && next.approval === 'manual') await storeAutomaticApprovals(sql, id, clock.now());
      await programs.updateProgram(sql, id, next);
      return programView({ ...current, ...next }, await programs.listProductRules(sql, id));
    }),
  );
}

export async function addProductRule({ store, clock }: Deps, programId: number, productId: string, rule: CommissionRule) {
  return changingProgram(store, programId, () =>
    store.transaction(async (sql) => {
      await requireProgram(sql, programId);
      const row: ProductRuleRow = {
        program_id: programId, product_id: productId, commission_type: rule.type, commission_value: rule.value, created_at: clock.now(),
      };
      await programs.upsertProductRule(sql, row);
      return ruleView(row);
    }),
  );
}

async function issueKey({ store, clock }: Deps, sql: Sql, programId: number, mode: ApiKeyMode) {
  const apiKey = randomToken(`pk_${mode}_`);
  const row = {
    id: await store.nextId(sql, 'api_keys'),
    program_id: programId,
    mode,
    key_hash: sha256(apiKey),
    prefix: apiKey.slice(0, 12),
    status: 'active' as const,
    created_at: clock.now(),
  };
  await keys.insertApiKey(sql, row);
  return { id: row.id, apiKey, mode };
}

export async function createApiKey(deps: Deps, programId: number, mode: ApiKeyMode) {
  return creatingApiKeys(deps.store, () =>
    deps.store.transaction(async (sql) => {
      await requireProgram(sql, programId);
      return issueKey(deps, sql, programId, mode);
    }),
  );
}

export async function retireApiKey({ store, clock }: Deps, programId: number, keyId: number) {
  return changingApiKey(store, keyId, () =>
    store.transaction(async (sql) => {
      const key = await keys.findApiKey(sql, programId, keyId);
      if (!key) throw new AppError('not_found', `API key ${keyId} not found in program ${programId}`);
      if (key.status === 'active') await keys.markApiKeyRetired(sql, keyId, clock.now());
      return { id: keyId, status: 'retired' as const };
    }),
  );
}

export async function listApiKeys({ store }: Deps, programId: number) {
  return store.read(async (sql) => {
    await requireProgram(sql, programId);
    return (await keys.programApiKeys(sql, programId)).map(keyView);
  });
}

async function requirePartner(sql: Sql, id: number): Promise<PartnerRow> {
  const partner = await partners.findPartner(sql, id);
  if (!partner) throw new AppError('not_found', `Partner ${id} not found`);
  return partner;
}

/** An inactive partner is neither enrolled nor signed in until reactivated (docs/sessions.md#inactive-partners). */
function requireActive(partner: PartnerRow, action: string): void {
  if (partner.status === 'inactive') {
    throw new AppError('conflict', `Partner ${partner.id} is inactive and cannot ${action}; reactivate them with partner update --status active`);
  }
}

function partnerView(p: Omit<PartnerRow, 'created_at'>): Partner {
  return { id: p.id, name: p.name, email: p.email, payoutMethod: p.payout_method, payoutEmail: p.payout_email, status: p.status };
}

/** E-mails are stored lower-cased (docs/api.md#partners-and-enrollments); another partner's is 409 conflict. */
async function claimEmail(sql: Sql, input: string, partnerId?: number): Promise<string> {
  const email = input.toLowerCase();
  const holder = await partners.findPartnerByEmail(sql, email);
  if (holder && holder.id !== partnerId) throw new AppError('conflict', `A partner with e-mail ${email} exists`);
  return email;
}

export async function createPartner(deps: Deps, input: { name: string; email: string }) {
  return deps.store.transaction((sql) => insertNewPartner(deps, sql, input));
}

/** Stores a new active partner inside the caller's transaction; another partner's e-mail is 409 conflict. */
export async function insertNewPartner({ store, clock }: Deps, sql: Sql, input: { name: string; email: string }): Promise<Partner> {
  const email = await claimEmail(sql, input.email);
  const row: PartnerRow = {
    id: await store.nextId(sql, 'partners'), name: input.name, email, created_at: clock.now(), payout_method: null, payout_email: null, status: 'active',
  };
  await partners.insertPartner(sql, row);
  return partnerView(row);
}

export type PartnerChanges = { name?: string; email?: string; payoutMethod?: PayoutMethod | null; payoutEmail?: string | null; status?: PartnerStatus };

/**
 * PATCH /api/admin/partners/:partnerId: the fields named change (null clears a payout detail), the
 * others stay. A status change sets every enrollment of the partner to it, and deactivating ends the
 * partner's sessions (docs/sessions.md#inactive-partners).
 */
export async function updatePartner({ store }: Deps, id: number, changes: PartnerChanges) {
  return changingEnrollments(store, id, () =>
    store.transaction(async (sql) => {
      const current = await requirePartner(sql, id);
      const next = {
        id,
        name: changes.name ?? current.name,
        email: changes.email === undefined ? current.email : await claimEmail(sql, changes.email, id),
        payout_method: changes.payoutMethod === undefined ? current.payout_method : changes.payoutMethod,
        payout_email: changes.payoutEmail === undefined ? current.payout_email : (changes.payoutEmail?.toLowerCase() ?? null),
        status: changes.status ?? current.status,
      };
      await partners.updatePartner(sql, next);
      if (changes.status !== undefined) await partners.setPartnerEnrollmentsStatus(sql, id, changes.status);
      if (changes.status === 'inactive') await endSessionsOf(sql, { partnerId: id });
      return partnerView(next);
    }),
  );
}

export async function enrollPartner(deps: Deps, programId: number, partnerId: number) {
  return deps.store.transaction(async (sql) => {
    await requireProgram(sql, programId);
    if (await partners.findEnrollment(sql, programId, partnerId)) {
      throw new AppError('conflict', `Partner ${partnerId} is already enrolled in program ${programId}`);
    }
    return enrollIn(deps, sql, programId, partnerId);
  });
}

/**
 * Enrolls an active partner not yet in the program, inside the caller's transaction: a new ref code
 * and the `partner.enrolled` event. An inactive partner is 409 conflict.
 */
export async function enrollIn(deps: Deps, sql: Sql, programId: number, partnerId: number): Promise<Enrollment> {
  requireActive(await requirePartner(sql, partnerId), 'be enrolled');
  const row = {
    id: await deps.store.nextId(sql, 'partner_programs'),
    partner_id: partnerId,
    program_id: programId,
    ref_code: randomCode(),
    status: 'active' as const,
    created_at: deps.clock.now(),
  };
  await partners.insertPartnerProgram(sql, row);
  const enrollment = { id: row.id, programId, partnerId, refCode: row.ref_code, createdAt: row.created_at.toISOString() };
  await emit(deps, sql, [{ programId, type: 'partner.enrolled', livemode: true, data: enrollment }]);
  return enrollment;
}

async function userFor({ store, clock }: Deps, sql: Sql, email: string) {
  const existing = await members.findUserByEmail(sql, email);
  if (existing) return existing;
  const user = { id: await store.nextId(sql, 'users'), email, created_at: clock.now() };
  await members.insertUser(sql, user);
  return user;
}

export async function setMembership(deps: Deps, programId: number, email: string, status: 'active' | 'inactive') {
  return deps.store.transaction(async (sql) => {
    await requireProgram(sql, programId);
    const normalized = email.toLowerCase();
    if (status === 'inactive') {
      const user = await members.findUserByEmail(sql, normalized);
      if (!user || !(await members.findMember(sql, programId, user.id))) {
        throw new AppError('not_found', `${normalized} is not a member of program ${programId}`);
      }
    }
    const user = await userFor(deps, sql, normalized);
    await members.upsertMember(sql, programId, user.id, status, deps.clock.now());
    // Sessions belong to the user, not to a program: removal from one program ends them all (docs/sessions.md#revoking-sessions).
    if (status === 'inactive') await endSessionsOf(sql, { userId: user.id });
    return { userId: user.id, programId, status };
  });
}

/** POST /api/admin/sessions: a dashboard session and a sign-in code (docs/sessions.md#sign-in-links-and-one-time-codes). */
export async function createSession({ store, clock }: Deps, email: string, ttlHours: number) {
  return store.transaction(async (sql) => {
    const user = await members.findUserByEmail(sql, email.toLowerCase());
    if (!user) throw new AppError('not_found', `No user with e-mail ${email}; add them with member add first`);
    return issueSignIn(sql, { userId: user.id }, clock.now(), ttlHours);
  });
}

/** POST /api/admin/partners/:partnerId/sessions: a partner portal session and a sign-in code (docs/pages.md#partner-sessions). */
export async function createPartnerSession({ store, clock }: Deps, partnerId: number, ttlHours: number) {
  return store.transaction(async (sql) => {
    requireActive(await requirePartner(sql, partnerId), 'sign in');
    return { partnerId, ...(await issueSignIn(sql, { partnerId }, clock.now(), ttlHours)) };
  });
}
