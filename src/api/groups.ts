import { z } from 'zod';
import { commissionFlatCents, commissionPercent, commissionTermsSchema, NOTHING_TO_CHANGE, someField } from './admin.js';
import { id, instant, pathId } from './common.js';
import { PERIODS } from './constants.js';

/*
 * Partner groups, moves and the rule preview (docs/groups.md): what a member sends and reads.
 */

export const THRESHOLD_METRICS = ['conversions', 'revenue'] as const;
export const THRESHOLD_WINDOWS = ['30d', 'all'] as const;

export const thresholdSchema = z.object({
  metric: z.enum(THRESHOLD_METRICS).describe('conversions: customers whose first purchase was recorded; revenue: cents of live sales as recorded'),
  value: z.int().min(1).max(Number.MAX_SAFE_INTEGER),
  window: z.enum(THRESHOLD_WINDOWS).describe('30d: the 30 days before the sale; all: all time'),
});

/** A group's settings; null clears an optional one (the commission: the program's applies). */
const groupSettings = {
  name: z.string().min(1).max(255),
  commissionPercent: commissionPercent.nullable(),
  commissionFlatCents: commissionFlatCents.nullable(),
  holdDays: z.int().min(0).max(3650),
  recurringMonths: z.int().min(0).max(1200).nullable().describe('Months of renewals that earn commission; null: every renewal'),
  leadRewardCents: z.int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().describe('A flat commission per customer who signs up'),
  nextGroupId: id.nullable(),
  threshold: thresholdSchema.nullable(),
  default: z.literal(true).describe("Makes this the program's default group"),
};

const oneCommission = <T extends { commissionPercent?: number | null; commissionFlatCents?: number | null }>(b: T) =>
  b.commissionPercent == null || b.commissionFlatCents == null;
const ONE_COMMISSION = { message: 'give commissionPercent or commissionFlatCents, not both', path: ['commissionFlatCents'] };

export const createGroupRequestSchema = z
  .object({ ...groupSettings, name: groupSettings.name })
  .partial()
  .required({ name: true })
  .refine(oneCommission, ONE_COMMISSION);

export const updateGroupRequestSchema = z.object(groupSettings).partial().refine(someField, NOTHING_TO_CHANGE).refine(oneCommission, ONE_COMMISSION);

export const groupParams = z.object({ programId: pathId, groupId: pathId });
export const removeGroupQuerySchema = z.object({ moveTo: pathId.optional().describe('The group the removed group’s partners move to') });
export const partnerGroupParams = z.object({ programId: pathId, partnerId: pathId });
export const setPartnerGroupRequestSchema = z.object({ groupId: id });
export const movesQuerySchema = z.object({ partnerId: z.coerce.number<number>().int().min(1).max(Number.MAX_SAFE_INTEGER).optional() });

export const groupSchema = z.object({
  id: z.int(),
  programId: z.int(),
  name: z.string(),
  isDefault: z.boolean(),
  commission: commissionTermsSchema.nullable().describe("The group's sale reward; null: the program's commission"),
  holdDays: z.int(),
  recurringMonths: z.int().nullable(),
  leadRewardCents: z.int().nullable(),
  nextGroupId: z.int().nullable(),
  threshold: thresholdSchema.nullable(),
  partners: z.int().describe('Enrollments in the group'),
  createdAt: instant,
});

export const groupMoveSchema = z.object({
  id: z.int(),
  programId: z.int(),
  partnerId: z.int(),
  fromGroupId: z.int().nullable(),
  toGroupId: z.int(),
  reason: z.enum(['threshold', 'manual']),
  saleId: z.int().nullable().describe('The sale that crossed the threshold'),
  createdAt: instant,
});

export const partnerGroupSchema = z.object({ partnerId: z.int(), groupId: z.int(), move: groupMoveSchema.nullable().describe('null: it was in the group already') });

export type CreateGroupRequest = z.input<typeof createGroupRequestSchema>;
export type UpdateGroupRequest = z.input<typeof updateGroupRequestSchema>;
export type GroupView = z.output<typeof groupSchema>;
export type GroupMoveView = z.output<typeof groupMoveSchema>;
export type PartnerGroupView = z.output<typeof partnerGroupSchema>;

export const previewQuerySchema = z
  .object({
    period: z.enum(PERIODS).default('90d').describe('7d, 30d, 90d (default) or all: the sales received in it'),
    commissionPercent: z.coerce.number<number>().pipe(commissionPercent).optional(),
    commissionFlatCents: z.coerce.number<number>().pipe(commissionFlatCents).optional(),
    groupId: z.coerce.number<number>().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().describe("A group's sale reward and recurring months"),
    recurringMonths: z.coerce
      .number<number>()
      .int()
      .min(0)
      .max(1200)
      .optional()
      .describe("Months of a subscription's renewals that earn (0: its first payment only); without it, the group's or the program's"),
    everyRenewal: z.enum(['true', 'false']).optional().describe('true: every renewal earns'),
  })
  .refine((q) => [q.commissionPercent, q.commissionFlatCents, q.groupId].filter((v) => v !== undefined).length <= 1, {
    message: 'give at most one of commissionPercent, commissionFlatCents and groupId',
    path: ['commissionFlatCents'],
  })
  .refine((q) => q.recurringMonths === undefined || q.everyRenewal !== 'true', {
    message: 'give recurringMonths or everyRenewal=true, not both',
    path: ['everyRenewal'],
  });

const previewFigures = {
  sales: z.int(),
  revenueCents: z.int().describe('What refunds left of the sales'),
  actualCents: z.int().describe('Their commissions as they are'),
  previewCents: z.int().describe('What the reward would have paid'),
};

export const previewSchema = z.object({
  period: z.enum(PERIODS),
  from: instant,
  to: instant,
  rule: commissionTermsSchema,
  recurringMonths: z.int().nullable().describe("Months of a subscription's renewals that earned in the preview; null: every renewal"),
  partners: z.array(z.object({ partnerId: z.int(), name: z.string(), ...previewFigures })),
  totals: z.object(previewFigures),
});

export type PreviewQuery = z.output<typeof previewQuerySchema>;
export type Preview = z.output<typeof previewSchema>;
