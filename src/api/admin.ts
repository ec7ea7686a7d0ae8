import { z } from 'zod';
import { APPROVAL_MODES, PARTNER_STATUSES, PAYOUT_METHODS, SESSION_HOURS, SIGN_IN_AUDIENCES } from './constants.js';
import { id, instant, pathId } from './common.js';
import { fraudRulesInput, fraudRulesSchema } from './fraud.js';

const name = z.string().min(1).max(255);
const email = z.email().max(255);

/** A percentage (0–100, two decimals at most) or a flat amount in cents; not both. */
export const commissionPercent = z
  .number()
  .gt(0)
  .max(100)
  .refine((p) => Number.isInteger(Math.round(p * 100 * 1e6) / 1e6), 'at most two decimals');
export const commissionFlatCents = z.int().min(0).max(Number.MAX_SAFE_INTEGER);

const commissionInput = z
  .object({ commissionPercent: commissionPercent.optional(), commissionFlatCents: commissionFlatCents.optional() })
  .refine((c) => c.commissionPercent === undefined || c.commissionFlatCents === undefined, {
    message: 'give commissionPercent or commissionFlatCents, not both',
    path: ['commissionFlatCents'],
  });
export type CommissionInput = z.output<typeof commissionInput>;

/**
 * Where the program's partner links send visitors (docs/tracking.md#landing-url): an absolute http(s)
 * URL without user name or password, at most 2,048 characters, stored as the URL parser writes it.
 */
export const landingUrl = z
  .url({ protocol: /^https?$/, normalize: true })
  .max(2048)
  // Runs after a failed URL check too (zod refinements do), so it must not assume a URL.
  .refine((url) => !URL.canParse(url) || new URL(url).username + new URL(url).password === '', 'a landing URL carries no user name or password')
  .describe("The program's landing page: partner links redirect there");

/** A program's settings besides its commission; create gives them defaults, update changes the ones it names. */
const programSettings = {
  name,
  attributionWindowDays: z.int().min(1).max(3650),
  holdDays: z.int().min(0).max(3650),
  recurringMonths: z.int().min(0).max(1200).nullable(),
  approval: z.enum(APPROVAL_MODES).describe('auto: pending commissions are approved when their hold ends; manual: by commission approve'),
  minPayoutCents: z.int().min(0).max(Number.MAX_SAFE_INTEGER).describe('A balance below it waits for a later payout'),
  landingUrl: landingUrl.nullable(),
  fraudRules: fraudRulesInput,
  stripeApiKey: z
    .string()
    .regex(/^rk_(live|test)_[A-Za-z0-9]{8,247}$/, 'a restricted Stripe API key, rk_live_… or rk_test_…')
    .nullable()
    .describe('The restricted key (read access to events) Stripe reconciliation uses; stored like a secret and never shown again; null removes it'),
  applicationsOpen: z.boolean().describe('The public application page takes applications (default true)'),
  autoApprove: z.boolean().describe('Applications are approved as they arrive (default false)'),
};

export const createProgramRequestSchema = z.intersection(
  z.object({
    name,
    attributionWindowDays: programSettings.attributionWindowDays.default(90),
    holdDays: programSettings.holdDays.default(30),
    recurringMonths: programSettings.recurringMonths.default(null),
    approval: programSettings.approval.default('auto'),
    minPayoutCents: programSettings.minPayoutCents.default(0),
    landingUrl: programSettings.landingUrl.default(null),
    fraudRules: programSettings.fraudRules.default({}),
    stripeApiKey: programSettings.stripeApiKey.default(null),
    applicationsOpen: programSettings.applicationsOpen.default(true),
    autoApprove: programSettings.autoApprove.default(false),
  }),
  commissionInput,
);

/** At least one field of an update body. */
export const someField = <T extends object>(body: T) => Object.values(body).some((value) => value !== undefined);
export const NOTHING_TO_CHANGE = { message: 'give at least one setting to change', path: [] };

export const updateProgramRequestSchema = z
  .intersection(z.object(programSettings).partial(), commissionInput)
  .refine(someField, NOTHING_TO_CHANGE);

/**
 * What a member may change from the dashboard's Settings (docs/api.md#workspace-settings): every
 * setting of update but the Stripe API key, a credential that stays with the admin.
 */
const { stripeApiKey: _adminOnly, ...memberSettings } = programSettings;
export const updateSettingsRequestSchema = z
  .intersection(z.object(memberSettings).partial(), commissionInput)
  .refine(someField, NOTHING_TO_CHANGE);

export const productRuleRequestSchema = z
  .intersection(z.object({ productId: z.string().min(1).max(255) }), commissionInput)
  .refine((b) => b.commissionPercent !== undefined || b.commissionFlatCents !== undefined, {
    message: 'give commissionPercent or commissionFlatCents',
    path: ['commissionPercent'],
  });

export const createApiKeyRequestSchema = z.object({ test: z.boolean().default(false) });
export const apiKeyParams = z.object({ programId: pathId, keyId: pathId });
export const createPartnerRequestSchema = z.object({ name, email });
export const partnerParams = z.object({ partnerId: pathId });


export const updatePartnerRequestSchema = z
  .object({
    name,
    email,
    payoutMethod: z.enum(PAYOUT_METHODS).nullable().describe('null clears it'),
    payoutEmail: email.nullable().describe('The PayPal or Wise account to pay; null clears it'),
    status: z.enum(PARTNER_STATUSES).describe("inactive: the partner's links and attribution stop and its sessions end; active: they resume"),
  })
  .partial()
  .refine(someField, NOTHING_TO_CHANGE);
export const enrollPartnerRequestSchema = z.object({ partnerId: id });
export const memberRequestSchema = z.object({ email });
/** Hours a session lasts: more than 0, at most 30 days (docs/sessions.md#session-lifetime). */
const ttlHours = z
  .number()
  .gt(0)
  .max(SESSION_HOURS.max, `a session lasts at most ${SESSION_HOURS.max} hours (30 days)`)
  .default(SESSION_HOURS.default);
export const createSessionRequestSchema = z.object({ email, ttlHours });
export const createPartnerSessionRequestSchema = z.object({ ttlHours });
/** Whose sessions end: a user's by e-mail or a partner's by id (docs/sessions.md#revoking-sessions). */
export const revokeSessionsRequestSchema = z
  .object({ email: email.optional(), partnerId: id.optional() })
  .refine((body) => (body.email === undefined) !== (body.partnerId === undefined), { message: 'give email or partnerId, one of them', path: [] });
export const exchangeSignInCodeRequestSchema = z.object({ code: z.string().min(1).max(255).describe("The code in the sign-in link's #code=") });
/** Who asks for a sign-in link by mail, and for which page (docs/mail.md#sign-in-by-e-mail). */
export const emailLinkRequestSchema = z.object({
  email,
  audience: z.enum(SIGN_IN_AUDIENCES).describe('member: the dashboard; partner: the partner portal'),
});
/** The one answer to a request for a sign-in link, whoever asked (docs/mail.md#sign-in-by-e-mail). */
export const emailLinkAcceptedSchema = z.object({ message: z.string() });

/** A commission rule as the API shows it: a percentage or a flat amount in cents. */
export const commissionTermsSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('percent'), percent: z.number() }),
  z.object({ type: z.literal('flat'), flatCents: z.int() }),
]);

export const productRuleSchema = z.object({ programId: z.int(), productId: z.string(), commission: commissionTermsSchema });

export const programSchema = z.object({
  id: z.int(),
  name: z.string(),
  commission: commissionTermsSchema,
  attributionWindowDays: z.int(),
  holdDays: z.int(),
  recurringMonths: z.int().nullable().describe('Months of renewals that earn commission; null: every renewal'),
  webhookSecret: z.string(),
  createdAt: instant,
  productRules: z.array(productRuleSchema),
  approval: z.enum(APPROVAL_MODES),
  minPayoutCents: z.int(),
  landingUrl: z.string().nullable(),
  fraudRules: fraudRulesSchema,
  stripeApiKeySet: z.boolean().describe('Whether a Stripe API key is stored (the key itself is never shown)'),
  applicationsOpen: z.boolean(),
  autoApprove: z.boolean(),
});

/** A program as its members read it: without the Stripe webhook signing secret, which stays with the admin. */
export const programSettingsSchema = programSchema.omit({ webhookSecret: true });

export const createdProgramSchema = programSchema.extend({
  apiKey: z.string().describe('The live API key, shown only here'),
  testApiKey: z.string().describe('The test API key, shown only here'),
});

const keyMode = z.enum(['live', 'test']);

export const apiKeySchema = z.object({
  id: z.int(),
  programId: z.int(),
  mode: keyMode,
  prefix: z.string().describe('The first characters of the key, for telling keys apart'),
  status: z.enum(['active', 'retired']),
  createdAt: instant,
});

export const createdApiKeySchema = z.object({ id: z.int(), apiKey: z.string().describe('Shown only here'), mode: keyMode });
export const retiredApiKeySchema = z.object({ id: z.int(), status: z.literal('retired') });
export const partnerSchema = z.object({
  id: z.int(),
  name: z.string(),
  email: z.string(),
  payoutMethod: z.enum(PAYOUT_METHODS).nullable(),
  payoutEmail: z.string().nullable(),
  status: z.enum(PARTNER_STATUSES),
});
export const enrollmentSchema = z.object({ id: z.int(), programId: z.int(), partnerId: z.int(), refCode: z.string(), createdAt: instant });
export const membershipSchema = z.object({ userId: z.int(), programId: z.int(), status: z.enum(['active', 'inactive']) });
/** A workspace member as the Settings list shows one. */
export const memberSchema = z.object({ userId: z.int(), email: z.string(), status: z.enum(['active', 'inactive']), createdAt: instant, updatedAt: instant });
/** A session: its token (shown only here) and when it ends. */
export const exchangedSessionSchema = z.object({ token: z.string().describe('Shown only here'), expiresAt: instant });
/** A new session for scripts, and a one-time code for a sign-in link that opens another one ending at the same time. */
export const sessionSchema = exchangedSessionSchema.extend({
  signInCode: z.string().describe('Works once, until signInCodeExpiresAt; shown only here'),
  signInCodeExpiresAt: instant,
});
export const partnerSessionSchema = z.object({ partnerId: z.int(), ...sessionSchema.shape });
export const revokedSessionsSchema = z.object({ revoked: z.int().describe('How many sessions ended') });

export type CreateProgramRequest = z.input<typeof createProgramRequestSchema>;
export type UpdateProgramRequest = z.input<typeof updateProgramRequestSchema>;
export type UpdatePartnerRequest = z.input<typeof updatePartnerRequestSchema>;
export type ProductRuleRequest = z.input<typeof productRuleRequestSchema>;
export type CreateApiKeyRequest = z.input<typeof createApiKeyRequestSchema>;
export type CreatePartnerRequest = z.input<typeof createPartnerRequestSchema>;
export type EnrollPartnerRequest = z.input<typeof enrollPartnerRequestSchema>;
export type MemberRequest = z.input<typeof memberRequestSchema>;
export type CreateSessionRequest = z.input<typeof createSessionRequestSchema>;
export type CreatePartnerSessionRequest = z.input<typeof createPartnerSessionRequestSchema>;
export type RevokeSessionsRequest = z.input<typeof revokeSessionsRequestSchema>;

export type CommissionTerms = z.output<typeof commissionTermsSchema>;
export type ProductRule = z.output<typeof productRuleSchema>;
export type Program = z.output<typeof programSchema>;
export type ProgramSettings = z.output<typeof programSettingsSchema>;
export type UpdateSettingsRequest = z.input<typeof updateSettingsRequestSchema>;
export type Member = z.output<typeof memberSchema>;
export type CreatedProgram = z.output<typeof createdProgramSchema>;
export type ApiKey = z.output<typeof apiKeySchema>;
export type CreatedApiKey = z.output<typeof createdApiKeySchema>;
export type RetiredApiKey = z.output<typeof retiredApiKeySchema>;
export type Partner = z.output<typeof partnerSchema>;
export type Enrollment = z.output<typeof enrollmentSchema>;
export type Membership = z.output<typeof membershipSchema>;
export type Session = z.output<typeof sessionSchema>;
export type PartnerSession = z.output<typeof partnerSessionSchema>;
export type ExchangedSession = z.output<typeof exchangedSessionSchema>;
export type EmailLinkRequest = z.input<typeof emailLinkRequestSchema>;
export type EmailLinkAccepted = z.output<typeof emailLinkAcceptedSchema>;
export type RevokedSessions = z.output<typeof revokedSessionsSchema>;
