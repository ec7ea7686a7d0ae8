import { z } from 'zod';
import { id, instant } from './common.js';
import { COMMISSION_STATUSES, FRAUD_MODES, FRAUD_RULES } from './constants.js';

const mode = z.enum(FRAUD_MODES);

/** A program's fraud rules as the API names them (docs/fraud.md#the-rules). */
export const fraudRulesSchema = z.object({ selfReferral: mode, disposableEmail: mode, fastConversion: mode, refundRate: mode });

/** The rules a program create or update sets; the others keep their mode. */
export const fraudRulesInput = fraudRulesSchema.partial().describe('off, flag or hold per rule; rules left out keep their mode');

export const fraudEventsQuerySchema = z.object({
  status: z.enum(['held', 'all']).default('held').describe('held: the events of commissions on hold; all: every event'),
});

export const resolveHeldRequestSchema = z.object({
  commissionIds: z.array(id).min(1).max(1000),
  reason: z.string().min(1).max(1000).optional().describe('Why a held commission is rejected; stored with it'),
});

export const fraudEventSchema = z.object({
  id: z.int(),
  commissionId: z.int(),
  saleId: z.int(),
  partnerId: z.int(),
  partnerName: z.string(),
  rule: z.enum(FRAUD_RULES),
  action: z.enum(['flag', 'hold']),
  evidence: z.record(z.string(), z.unknown()).describe('What the rule saw'),
  createdAt: instant,
  commissionStatus: z.enum(COMMISSION_STATUSES).describe("The commission's stored status now"),
  amountCents: z.int(),
  currency: z.string(),
});

export type FraudRules = z.output<typeof fraudRulesSchema>;
export type FraudRulesInput = z.input<typeof fraudRulesInput>;
export type FraudEvent = z.output<typeof fraudEventSchema>;
export type FraudEventsQuery = z.input<typeof fraudEventsQuerySchema>;
export type ResolveHeldRequest = z.input<typeof resolveHeldRequestSchema>;
