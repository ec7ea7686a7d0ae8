/**
 * The contract's constants, apart from the schemas: commands read them for their flags without
 * loading zod and every schema (docs/architecture.md#command-start-up). The schema modules build on them.
 */

/** The program's commission when POST /api/admin/programs names none. */
export const DEFAULT_COMMISSION_PERCENT = 20;

export const PERIODS = ['7d', '30d', '90d', 'all'] as const;
export type Period = (typeof PERIODS)[number];
export const DEFAULT_PERIOD: Period = '7d';

export const DEMO_DEFAULTS = { days: 90, clicks: 200_000, seed: 42 };
/** Accepted ranges of the options, the same for the CLI and the admin route. */
export const DEMO_LIMITS = { days: { min: 1, max: 3650 }, clicks: { min: 0, max: 100_000_000 }, seed: { min: 0, max: 2 ** 32 - 1 } } as const;

/** How pending commissions become approved (docs/refunds-and-payouts.md#the-status-a-commission-reads-as). */
export const APPROVAL_MODES = ['auto', 'manual'] as const;
export type Approval = (typeof APPROVAL_MODES)[number];

/** Sessions (docs/sessions.md#session-lifetime): 24 hours unless asked, 30 days at most. */
export const SESSION_HOURS = { default: 24, max: 30 * 24 } as const;
/** How long a sign-in link's one-time code opens a session (docs/sessions.md#sign-in-links-and-one-time-codes). */
export const SIGN_IN_CODE_MINUTES = 15;

/** Who may ask for a sign-in link by mail: a workspace member (the dashboard) or a partner (the portal). */
export const SIGN_IN_AUDIENCES = ['member', 'partner'] as const;
export type SignInAudience = (typeof SIGN_IN_AUDIENCES)[number];
/** Sign-in links mailed per address and per client address in an hour, at most (docs/mail.md#sign-in-by-e-mail). */
export const EMAIL_LINK_LIMITS = { perEmail: 5, perClient: 20, windowSeconds: 3600 } as const;

/** A partner application's status (docs/applications.md#deciding). */
export const APPLICATION_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type ApplicationStatus = (typeof APPLICATION_STATUSES)[number];
/** Applications per client address in an hour, at most (docs/applications.md#the-application-page). */
export const APPLICATION_RATE_LIMIT = { max: 10, windowSeconds: 3600 } as const;

/** A partner's status (docs/sessions.md#inactive-partners). */
export const PARTNER_STATUSES = ['active', 'inactive'] as const;
export type PartnerStatus = (typeof PARTNER_STATUSES)[number];

/** Where a partner is paid (docs/refunds-and-payouts.md#partner-payout-details). */
export const PAYOUT_METHODS = ['paypal', 'wise', 'manual'] as const;
export type PayoutMethod = (typeof PAYOUT_METHODS)[number];

/** Commission statuses as read (docs/refunds-and-payouts.md#the-status-a-commission-reads-as). */
export const COMMISSION_STATUSES = ['pending', 'on_hold', 'approved', 'processing', 'paid', 'reversed', 'rejected'] as const;

/** The fraud rules and what each may do (docs/fraud.md#the-rules), with each rule's default. */
export const FRAUD_RULES = ['self_referral', 'disposable_email', 'fast_conversion', 'refund_rate'] as const;
export type FraudRule = (typeof FRAUD_RULES)[number];
export const FRAUD_MODES = ['off', 'flag', 'hold'] as const;
export type FraudMode = (typeof FRAUD_MODES)[number];
export const DEFAULT_FRAUD_MODES: Readonly<Record<FraudRule, FraudMode>> = {
  self_referral: 'hold', disposable_email: 'flag', fast_conversion: 'flag', refund_rate: 'flag',
};
export const PAYOUT_STATUSES = ['processing', 'paid', 'canceled'] as const;
/** Batch export formats (docs/refunds-and-payouts.md#exporting-a-batch). */
export const EXPORT_FORMATS = ['csv', 'paypal', 'wise'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * The response headers of an export (docs/refunds-and-payouts.md#exporting-a-batch), comma-separated: the payouts in the
 * file, the payouts it left out, and why, in the same order.
 */
export const EXPORTED_PAYOUTS_HEADER = 'partnerkit-exported-payouts';
export const SKIPPED_PAYOUTS_HEADER = 'partnerkit-skipped-payouts';
export const SKIP_REASONS_HEADER = 'partnerkit-skipped-reasons';
export const SKIP_REASONS = ['no_payout_email', 'other_payout_method'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];
export type CommissionStatus = (typeof COMMISSION_STATUSES)[number];
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/** The path of a partner's link on the partnerkit server (docs/tracking.md#partner-links-get-rrefcode). */
export function partnerLinkPath(refCode: string): string {
  return `/r/${encodeURIComponent(refCode)}`;
}

/** The tracking script's path, for the program whose attribution window its cookie lasts (docs/tracking.md#the-tracking-script-get-pkjsprogramprogramid). */
export function trackingScriptPath(programId: number): string {
  return `/pk.js?program=${programId}`;
}

/** The tables a program's data export writes, and its file formats (docs/exports.md#what-an-export-holds). */
export const EXPORT_TABLES = ['clicks', 'customers', 'sales', 'commissions', 'refunds', 'payouts'] as const;
export type ExportTable = (typeof EXPORT_TABLES)[number];
export const DATA_FORMATS = ['csv', 'parquet', 'json'] as const;
export type DataFormat = (typeof DATA_FORMATS)[number];
/** The most rows one page of a list holds, and the response header of a paged list with its number of matching rows (docs/refunds-and-payouts.md#the-status-a-commission-reads-as). */
export const MAX_PAGE_LIMIT = 1000;
export const TOTAL_COUNT_HEADER = 'partnerkit-total-count';
/** What a paged list's SDK call answers: the page's rows and the number of matching rows. */
export type Page<T> = { data: T[]; total: number };

/** The response header of a data export holding its number of rows. */
export const EXPORT_ROWS_HEADER = 'partnerkit-export-rows';

/** The file name of a data export, which the server's Content-Disposition and the CLI's default --out share. */
export function dataExportFileName(programId: number, table: ExportTable, format: DataFormat): string {
  return `program-${programId}-${table}.${format}`;
}

/** What partnerkit sends to a program's endpoints (docs/outbound-webhooks.md#event-types). `partner.applied` arrives with applications. */
export const EVENT_TYPES = [
  'lead.created', 'sale.created', 'commission.created', 'commission.updated', 'refund.created', 'payout.created', 'payout.paid', 'payout.canceled',
  'partner.enrolled', 'partner.applied', 'ping',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

/** A sign-in link: the page, its one-time code in the fragment, never sent to a server (docs/sessions.md#sign-in-links-and-one-time-codes). */
export function signInUrl(base: string, page: 'dashboard' | 'portal', code: string): string {
  return `${base.replace(/\/+$/, '')}/${page}#code=${code}`;
}

/** A preview's recurring months in words, as the CLI and the pages show them (docs/groups.md#rule-preview). */
export function renewalsText(months: number | null): string {
  if (months === null) return 'every renewal';
  if (months === 0) return 'no renewal';
  return `renewals for ${months} month${months === 1 ? '' : 's'}`;
}
