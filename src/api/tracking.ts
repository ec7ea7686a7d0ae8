import { z } from 'zod';

// The sale request's schema depends on the service clock and stays with its rules in the domain.
export type { SaleRequest } from '../domain/sale-request.js';

const key = z.string().min(1).max(255);

export const clickRequestSchema = z.object({
  ref: key.describe("The partner's referral code"),
  landing_url: z.string().max(2048).optional(),
  referrer: z.string().max(2048).optional(),
  test: z.boolean().optional().describe('A test click, never counted in reports'),
  ip: z
    .union([z.ipv4(), z.ipv6()])
    .optional()
    .describe("Server-side clicks only (with the program's API key): the visitor's IP address, for the unique-click check"),
  user_agent: z.string().max(1024).optional().describe("Server-side clicks only: the visitor's User-Agent, with `ip`"),
});

export const leadRequestSchema = z.object({
  customer_key: key.describe("The merchant's stable id for this customer"),
  click_id: key.describe('The partner_click_id cookie value'),
  email: z.email().max(255).optional(),
  name: z.string().min(1).max(255).optional(),
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
