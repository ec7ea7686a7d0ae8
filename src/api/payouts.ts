import { z } from 'zod';
import { COMMISSION_STATUSES, EXPORT_FORMATS, PAYOUT_METHODS, PAYOUT_STATUSES } from './constants.js';
import { CURRENCIES } from './tracking.js';
import { id, instant, pageQuery, pathId } from './common.js';


/** Why a balance waits (docs/refunds-and-payouts.md#balances-and-the-payout-preview). */
export const PAYOUT_WAIT_REASONS = ['below_minimum', 'not_positive', 'amount_too_large'] as const;

/** Most ids one approve or reject takes. */
export const MAX_REVIEW_IDS = 10_000;

export const payoutParams = z.object({ payoutId: pathId });
export const batchParams = z.object({ batchId: pathId });

/**
 * Money sums are exact in the store; the JSON number is the nearest double, so a sum stored beyond
 * 2^53 − 1 cents still reads (docs/reports.md#rounding): an integer, but not always a safe one.
 */
const cents = z.number().refine(Number.isInteger, 'an integer');

export const commissionSchema = z.object({
  id: z.int(),
  programId: z.int(),
  partnerId: z.int(),
  saleId: z.int().nullable().describe('null for a lead reward'),
  type: z.enum(['sale', 'clawback', 'lead']).describe('lead: a lead reward (docs/groups.md#lead-rewards)'),
  amountCents: z.int().describe('Negative for a clawback'),
  currency: z.string(),
  status: z.enum(COMMISSION_STATUSES),
  holdUntil: instant,
  createdAt: instant,
  payoutId: z.int().nullable().describe('The payout holding it (processing or paid)'),
  paidAt: instant.nullable(),
  reason: z.string().nullable().describe('Why it was rejected'),
});

export const commissionsQuerySchema = pageQuery.extend({
  status: z.enum(COMMISSION_STATUSES).optional(),
  partnerId: pathId.optional(),
});

const reviewIds = z.array(id).min(1).max(MAX_REVIEW_IDS).describe('Commission ids of the program; all are changed or none');
export const approveCommissionsRequestSchema = z.object({ ids: reviewIds });
export const rejectCommissionsRequestSchema = z.object({ ids: reviewIds, reason: z.string().min(1).max(1000).optional() });

export const payoutSchema = z.object({
  id: z.int(),
  batchId: z.int(),
  programId: z.int(),
  partnerId: z.int(),
  currency: z.string(),
  amountCents: cents,
  commissionIds: z.array(z.int()),
  status: z.enum(PAYOUT_STATUSES),
  createdAt: instant,
  paidAt: instant.nullable(),
});

/** A partner of a program as lists name it: commissions and payouts carry only the partner's id. */
export const programPartnerSchema = z.object({
  partnerId: z.int(),
  name: z.string(),
  email: z.string(),
  payoutMethod: z.enum(PAYOUT_METHODS).nullable().describe("How the partner is paid: which payout files (PayPal, Wise) take their payouts"),
  refCode: z.string(),
  status: z.enum(['active', 'inactive']).describe('The enrollment: an inactive one keeps its history'),
  enrolledAt: instant,
});

export const programPartnersQuerySchema = z.object({
  q: z.string().trim().min(1).max(255).optional().describe("Only partners whose name or e-mail contains this, in any case"),
});

export const payoutPreviewSchema = z.object({
  payouts: z.array(z.object({ partnerId: z.int(), currency: z.string(), amountCents: cents, commissionCount: z.int() })),
  waiting: z.array(
    z.object({ partnerId: z.int(), currency: z.string(), balanceCents: cents, reason: z.enum(PAYOUT_WAIT_REASONS) }),
  ),
});

export const payoutBatchSchema = z.object({
  batchId: z.int().nullable().describe('null when nothing was due'),
  payouts: z.array(payoutSchema),
});

export const payoutsQuerySchema = z.object({ status: z.enum(PAYOUT_STATUSES).optional() });

export const exportQuerySchema = z.object({
  format: z.enum(EXPORT_FORMATS),
  currency: z
    .string()
    .transform((c) => c.toUpperCase())
    .pipe(z.enum(CURRENCIES))
    .optional()
    .describe("Only this currency's payouts; required by paypal when the batch has several"),
});

/** The CSV file of an export (text/csv). */
export const exportFileSchema = z.string().describe('CSV (RFC 4180, CRLF line ends)');

export type Commission = z.output<typeof commissionSchema>;
export type CommissionsQuery = z.input<typeof commissionsQuerySchema>;
export type ApproveCommissionsRequest = z.input<typeof approveCommissionsRequestSchema>;
export type RejectCommissionsRequest = z.input<typeof rejectCommissionsRequestSchema>;
export type Payout = z.output<typeof payoutSchema>;
export type ProgramPartner = z.output<typeof programPartnerSchema>;
export type ProgramPartnersQuery = z.input<typeof programPartnersQuerySchema>;
export type PayoutPreview = z.output<typeof payoutPreviewSchema>;
export type PayoutBatch = z.output<typeof payoutBatchSchema>;
export type PayoutsQuery = z.input<typeof payoutsQuerySchema>;
export type ExportQuery = z.input<typeof exportQuerySchema>;
