import { z } from 'zod';
import { id, instant, pathId } from './common.js';

/** What a promotion code may be (docs/promotion-codes.md#codes): what people read out and type. */
export const PROMOTION_CODE = /^[A-Za-z0-9_-]{1,64}$/;

export const promotionCode = z.string().regex(PROMOTION_CODE, '1–64 letters, digits, - or _');

/** A sale's or lead's `coupon_code` (docs/promotion-codes.md#attribution-by-code): any text a checkout passes on, compared without case. */
export const couponCode = z.string().min(1).max(255).describe('A promotion code (last attribution step, compared without regard to case)');

export const createCodeRequestSchema = z.object({
  partnerId: id,
  code: promotionCode,
  stripePromotionCode: z
    .string()
    .regex(/^promo_[A-Za-z0-9]{1,250}$/, 'a Stripe promotion code id, promo_…')
    .optional()
    .describe('The Stripe promotion code (promo_…) created for this code'),
});

export const codesQuerySchema = z.object({ partnerId: z.coerce.number<number>().int().min(1).max(Number.MAX_SAFE_INTEGER).optional() });

export const codeParams = z.object({ programId: pathId, code: promotionCode });

export const promotionCodeSchema = z.object({
  id: z.int(),
  programId: z.int(),
  partnerId: z.int(),
  partnerName: z.string(),
  code: z.string().describe('As it was added'),
  stripePromotionCode: z.string().nullable(),
  createdAt: instant,
});

export type CreateCodeRequest = z.input<typeof createCodeRequestSchema>;
export type PromotionCodeView = z.output<typeof promotionCodeSchema>;
