import { Flags } from '@oclif/core';
import { APPROVAL_MODES, DEFAULT_COMMISSION_PERCENT, DEFAULT_FRAUD_MODES, FRAUD_MODES, type Approval, type FraudMode } from '../api/constants.js';
import type { FraudRulesInput, Program, UpdateProgramRequest } from '../api/index.js';
import { commissionText, formatWhen } from './output.js';

/**
 * A program's settings as flags, shared by `program create` (the server fills in the defaults
 * named here) and `program update` (only the flags given change).
 */
export const programSettingFlags = {
  'commission-percent': Flags.string({ description: `commission percentage per sale (default ${DEFAULT_COMMISSION_PERCENT})`, exclusive: ['commission-flat-cents'] }),
  'commission-flat-cents': Flags.integer({ description: 'flat commission per sale, in cents', min: 0 }),
  'attribution-window-days': Flags.integer({ description: 'days from click (or signup) in which a sale is attributed (default 90)', min: 1 }),
  'hold-days': Flags.integer({ description: 'days a commission stays pending (default 30)', min: 0 }),
  'recurring-months': Flags.integer({ description: 'months of renewals that earn commission (0: first payment only)', min: 0, exclusive: ['every-renewal'] }),
  'every-renewal': Flags.boolean({ description: 'every renewal earns commission (the default)' }),
  approval: Flags.string({ description: 'auto: commissions are approved when their hold ends (default); manual: by commission approve', options: [...APPROVAL_MODES] }),
  'min-payout-cents': Flags.integer({ description: 'a balance below it waits for a later payout (default 0)', min: 0 }),
  'landing-url': Flags.string({ description: 'the page partner links send visitors to (http or https); "" clears it' }),
  'fraud-self-referral': fraudFlag('customer e-mail = partner e-mail', DEFAULT_FRAUD_MODES.self_referral),
  'fraud-disposable-email': fraudFlag('customer e-mail on a disposable-mail domain', DEFAULT_FRAUD_MODES.disposable_email),
  'fraud-fast-conversion': fraudFlag('sale within 10 s of its click', DEFAULT_FRAUD_MODES.fast_conversion),
  'stripe-api-key': Flags.string({ description: 'restricted Stripe API key (rk_…) that stripe reconcile reads events with; never shown again; "" removes it' }),
  'fraud-refund-rate': fraudFlag('partner refunds > 30 % of ≥ 10 sales in 30 days', DEFAULT_FRAUD_MODES.refund_rate),
  applications: Flags.string({ description: 'open: the public page /apply/<program> takes partner applications (default); closed: it does not', options: ['open', 'closed'] }),
  'auto-approve': Flags.boolean({ description: 'approve partner applications as they arrive (--no-auto-approve: members decide, the default)', allowNo: true }),
};

/** A fraud rule's mode (docs/fraud.md#the-rules). */
function fraudFlag(rule: string, defaultMode: FraudMode) {
  return Flags.string({ description: `fraud rule: ${rule}; off, flag or hold (default ${defaultMode})`, options: [...FRAUD_MODES] });
}

type SettingFlags = {
  'commission-percent'?: string;
  'commission-flat-cents'?: number;
  'attribution-window-days'?: number;
  'hold-days'?: number;
  'recurring-months'?: number;
  'every-renewal'?: boolean;
  approval?: string;
  'min-payout-cents'?: number;
  'landing-url'?: string;
  'fraud-self-referral'?: string;
  'fraud-disposable-email'?: string;
  'fraud-fast-conversion'?: string;
  'fraud-refund-rate'?: string;
  'stripe-api-key'?: string;
  applications?: string;
  'auto-approve'?: boolean;
};

/** The request fields of the flags given; a flag not given is left out. */
export function programSettings(flags: SettingFlags): Omit<UpdateProgramRequest, 'name'> {
  return {
    commissionPercent: flags['commission-percent'] === undefined ? undefined : Number(flags['commission-percent']),
    commissionFlatCents: flags['commission-flat-cents'],
    attributionWindowDays: flags['attribution-window-days'],
    holdDays: flags['hold-days'],
    recurringMonths: flags['every-renewal'] ? null : flags['recurring-months'],
    approval: flags.approval as Approval | undefined,
    minPayoutCents: flags['min-payout-cents'],
    landingUrl: flags['landing-url'] === undefined ? undefined : flags['landing-url'] || null,
    fraudRules: fraudRules(flags),
    stripeApiKey: flags['stripe-api-key'] === undefined ? undefined : flags['stripe-api-key'] || null,
    applicationsOpen: flags.applications === undefined ? undefined : flags.applications === 'open',
    autoApprove: flags['auto-approve'],
  };
}

/** The fraud rules' flags given, or undefined for none (an update then names no rule). */
function fraudRules(flags: SettingFlags): FraudRulesInput | undefined {
  const rules = {
    selfReferral: flags['fraud-self-referral'] as FraudMode | undefined,
    disposableEmail: flags['fraud-disposable-email'] as FraudMode | undefined,
    fastConversion: flags['fraud-fast-conversion'] as FraudMode | undefined,
    refundRate: flags['fraud-refund-rate'] as FraudMode | undefined,
  };
  return Object.values(rules).some((mode) => mode !== undefined) ? rules : undefined;
}

/**
 * A program as `program create|show|update` print it: its commission rule and each product's rule in
 * words (`20 %`, `pro-plan: 5.00 per sale`), its creation time as tables show times; the rest as the API has it.
 */
export function programDetails<P extends Program>(program: P, now: Date): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(program).map(([key, value]) => {
      if (key === 'commission') return [key, commissionText(program.commission)];
      if (key === 'productRules') return [key, program.productRules.map((r) => `${r.productId}: ${commissionText(r.commission)}`)];
      if (key === 'createdAt') return [key, formatWhen(program.createdAt, now)];
      if (key === 'fraudRules') return [key, Object.entries(program.fraudRules).map(([rule, mode]) => `${rule} ${mode}`).join(', ')];
      return [key, value];
    }),
  );
}
