import { z } from 'zod';
import { COMMISSION_STATUSES } from './constants.js';
import type { Clock } from '../clock.js';
import { couponCode } from './promotion-codes.js';

const key = z.string().min(1).max(255);

/** Payment providers a sale may name (docs/sales.md#field-rules; the specification omits the ten names). */
export const PROVIDERS = [
  'stripe', 'paddle', 'lemonsqueezy', 'paypal', 'braintree', 'chargebee', 'recurly', 'adyen', 'square', 'polar', 'other',
] as const;

/** The largest JSON body the API accepts, and so the largest line_items a sale can carry (docs/sales.md#field-rules). */
export const MAX_JSON_BYTES = 64 * 1024;

export const CURRENCIES = ['USD', 'EUR', 'VND'] as const;

export type Currency = (typeof CURRENCIES)[number];

const MAX_PAST_MS = 30 * 24 * 60 * 60 * 1000;
const MAX_FUTURE_MS = 5 * 60 * 1000;
const LINE_ITEMS_MAX_DEPTH = 32;

/** Nesting depth of a JSON value, without recursion: a 64 KiB body can nest 30,000 levels. */
function depth(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, level] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    deepest = Math.max(deepest, level);
    if (deepest > LINE_ITEMS_MAX_DEPTH) return deepest;
    for (const child of Object.values(node)) stack.push([child, level + 1]);
  }
  return deepest;
}

/**
 * The body of POST /api/v1/track/sale: the one source of its rules (docs/sales.md#field-rules), its TypeScript
 * type and its OpenAPI entry. occurred_at is checked against the service clock, hence the factory.
 * The currency is only required to be a string here: an unknown one is 422, not 400.
 */
export function saleRequestSchema(clock: Clock): SaleRequestSchema {
  let schema = schemas.get(clock);
  if (!schema) schemas.set(clock, (schema = buildSchema(clock)));
  return schema;
}

type SaleRequestSchema = ReturnType<typeof buildSchema>;

// One schema per clock: zod compiles a schema on its first parse, which cost a webhook delivery
// more than its signature check when each one built its own (bench profile).
const schemas = new WeakMap<Clock, SaleRequestSchema>();

function buildSchema(clock: Clock) {
  return z.object({
    transaction_id: key.optional().describe("The merchant's unique payment id; the idempotency key"),
    amount_cents: z.int().min(1).max(Number.MAX_SAFE_INTEGER).optional().describe('Amount in minor units, tax included'),
    tax_cents: z.int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe('Tax part of amount_cents; stored, never used in commissions'),
    customer_key: key.optional().describe("The merchant's customer id given at signup (primary attribution key)"),
    click_id: key.optional().describe('The partner_click_id cookie value (fallback attribution)'),
    coupon_code: couponCode.optional(),
    currency: z.string().optional().describe('USD, EUR or VND, case-insensitive; default USD'),
    sale_type: z.enum(['payment', 'subscription']).optional(),
    line_items: z
      .unknown()
      .refine((value) => depth(value) <= LINE_ITEMS_MAX_DEPTH, { message: `line_items may nest at most ${LINE_ITEMS_MAX_DEPTH} levels`, abort: true })
      .refine((value) => JSON.stringify(value ?? null).length <= MAX_JSON_BYTES, 'line_items must be at most 64 KiB')
      .optional(),
    is_recurring: z.boolean().optional(),
    subscription_id: key.optional(),
    subscription_interval: z.enum(['monthly', 'quarterly', 'annual']).optional(),
    product_id: key.optional(),
    occurred_at: z.iso
      .datetime({ offset: true })
      .refine((value) => {
        const age = clock.now().getTime() - Date.parse(value);
        return age <= MAX_PAST_MS && age >= -MAX_FUTURE_MS;
      }, 'occurred_at must be at most 30 days in the past and at most 5 minutes in the future')
      .optional(),
    provider: z.enum(PROVIDERS).optional(),
    provider_payment_id: z.string().min(1).max(255).optional(),
    livemode: z.boolean().optional().describe('false records a test sale'),
    // Only test_mode is read; other keys are dropped rather than stored.
    additional_data: z.object({ test_mode: z.boolean().optional() }).optional(),
  });
}

export type SaleRequest = z.infer<SaleRequestSchema>;

/**
 * A click's `landing_url` and `referrer` (docs/tracking.md#post-apiv1trackclick): an http or https URL of at most 2,048
 * characters. Any other scheme (`javascript:`, `data:`) or a text that is no URL at all is refused,
 * so nothing but a web address reaches the stored clicks and their exports.
 */
export const clickUrl = z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2048);

export const clickRequestSchema = z.object({
  ref: key.describe("The partner's referral code"),
  landing_url: clickUrl.optional().describe('The page the visitor landed on (http or https)'),
  referrer: clickUrl.optional().describe('The page the visitor came from (http or https)'),
  test: z.boolean().optional().describe('A test click, never counted in reports'),
  ip: z
    .union([z.ipv4(), z.ipv6()])
    .optional()
    .describe("Server-side clicks only (with the program's API key): the visitor's IP address, for the unique-click check"),
  user_agent: z.string().max(1024).optional().describe("Server-side clicks only: the visitor's User-Agent, with `ip`"),
});

export const leadRequestSchema = z
  .object({
    customer_key: key.describe("The merchant's stable id for this customer"),
    click_id: key.optional().describe('The partner_click_id cookie value'),
    coupon_code: couponCode.optional(),
    email: z.email().max(255).optional(),
    name: z.string().min(1).max(255).optional(),
  })
  .refine((lead) => lead.click_id !== undefined || lead.coupon_code !== undefined, { message: 'give click_id or coupon_code', path: ['click_id'] });

/** The body of POST /api/v1/track/refund (docs/refunds-and-payouts.md#post-apiv1trackrefund). */
export const refundRequestSchema = z.object({
  transaction_id: key.describe("The sale's transaction_id, as it was sent to the sale endpoint"),
  refund_id: key.describe("Your refund's unique id: the idempotency key"),
  amount_cents: z
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe('Amount refunded in minor units; default everything not refunded yet'),
  reason: z.string().min(1).max(1000).optional().describe('Why the sale was refunded; stored with the refund'),
});

export const refundResultSchema = z.object({
  success: z.literal(true),
  refund_id: z.number().int().describe("The stored refund's id"),
  sale_id: z.number().int(),
  refunded_cents: z.number().int().describe("The sale's refunded total after this refund"),
  remaining_cents: z.number().int().describe('What is left of the sale to refund'),
  commission_id: z.number().int().nullable().describe("The sale's commission; null for a test sale or a sale without one"),
  commission_status: z.enum(COMMISSION_STATUSES).nullable().describe("The commission's status after the refund"),
  clawback_commission_id: z.number().int().nullable().describe('The clawback created for a commission already in a payout, if any'),
});

export const clickResultSchema = z.object({ click_id: z.string() });

export const leadResultSchema = z.object({ success: z.literal(true), customer_id: z.number().int().nullable(), message: z.string() });

const liveSaleResultSchema = z.object({
  success: z.literal(true),
  sale_id: z.number().int().nullable(),
  commission_id: z.number().int().nullable(),
  message: z.string(),
});
const testSaleResultSchema = z.object({
  success: z.literal(true),
  message: z.string(),
  data: z.object({ eventId: z.number().int(), programId: z.number().int(), test_mode: z.literal(true) }),
});
export const saleResultSchema = z.union([liveSaleResultSchema, testSaleResultSchema]);

export type ClickRequest = z.input<typeof clickRequestSchema>;
export type LeadRequest = z.input<typeof leadRequestSchema>;
export type ClickResult = z.output<typeof clickResultSchema>;
export type LeadResult = z.output<typeof leadResultSchema>;
export type LiveSaleResult = z.output<typeof liveSaleResultSchema>;
export type TestSaleResult = z.output<typeof testSaleResultSchema>;
export type SaleResult = z.output<typeof saleResultSchema>;
export type RefundRequest = z.input<typeof refundRequestSchema>;
export type RefundResult = z.output<typeof refundResultSchema>;
