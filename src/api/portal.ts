import { z } from 'zod';
import { COMMISSION_STATUSES, PAYOUT_STATUSES, PERIODS } from './constants.js';
import { instant, pageQuery } from './common.js';

/** GET /api/me: who a dashboard session (or the admin token) is, and the programs it may open (docs/pages.md#get-apime). */
export const meSchema = z.object({
  user: z.object({ id: z.int(), email: z.string() }).nullable().describe('null for the admin token'),
  admin: z.boolean(),
  programs: z.array(z.object({ id: z.int(), name: z.string() })).describe('Active memberships (every program for the admin token), by id'),
  now: z.string().describe("The server's clock: the instant holds and periods are measured from"),
});

/** GET /api/portal/me (docs/pages.md#get-apiportalme). */
export const portalMeSchema = z.object({
  partner: z.object({ id: z.int(), name: z.string(), email: z.string() }),
  programs: z.array(
    z.object({
      programId: z.int(),
      name: z.string(),
      refCode: z.string(),
      status: z.enum(['active', 'inactive']),
      link: z.string().describe('The partner link, /r/<refCode> on the address the request reached'),
      viaLink: z.string().nullable().describe('The landing URL with ?via=<refCode>; null without a landing URL'),
    }),
  ),
});

const portalMetrics = {
  clicks: z.int(),
  leads: z.int().describe("Customers signed up whose status is still lead (the per-partner report's leads)"),
  conversions: z.int(),
  sales: z.int(),
  revenue: z.number(),
  commission: z.number(),
};

/** GET /api/portal/programs/:programId/performance (docs/pages.md#get-apiportalprogramsprogramidperformance). */
export const portalPerformanceSchema = z.object({
  data: z.object({
    totals: z.object(portalMetrics),
    daily: z.array(z.object({ date: z.string(), ...portalMetrics })),
  }),
  meta: z.object({
    programId: z.int(),
    partnerId: z.int(),
    from: instant,
    to: instant,
    period: z.enum([...PERIODS, 'custom']),
    currency: z.string().optional().describe("The one currency of the partner's sales and commissions in the program; absent when none or several"),
  }),
});

export const portalCommissionsQuerySchema = pageQuery.extend({ status: z.enum(COMMISSION_STATUSES).optional() });

/** Amounts in currency units (cents ÷ 100), as the reports write money (docs/reports.md#rounding). */
const amount = z.number();

export const portalCommissionsSchema = z.object({
  data: z.array(
    z.object({
      id: z.int(),
      saleId: z.int().nullable().describe('null for a lead reward'),
      type: z.enum(['sale', 'clawback', 'lead']).describe('lead: a lead reward (docs/groups.md#lead-rewards)'),
      amount: amount.describe('Negative for a clawback'),
      currency: z.string(),
      status: z.enum(COMMISSION_STATUSES),
      createdAt: instant,
      holdUntil: instant,
      paidAt: instant.nullable(),
      payoutId: z.int().nullable(),
    }),
  ),
});

export const portalPayoutsSchema = z.object({
  data: z.array(
    z.object({
      id: z.int(),
      batchId: z.int(),
      currency: z.string(),
      amount,
      status: z.enum(PAYOUT_STATUSES),
      createdAt: instant,
      paidAt: instant.nullable(),
      commissionCount: z.int(),
    }),
  ),
});

export type Me = z.output<typeof meSchema>;
export type PortalMe = z.output<typeof portalMeSchema>;
export type PortalPerformance = z.output<typeof portalPerformanceSchema>;
export type PortalCommissionsQuery = z.input<typeof portalCommissionsQuerySchema>;
export type PortalCommissions = z.output<typeof portalCommissionsSchema>;
export type PortalPayouts = z.output<typeof portalPayoutsSchema>;
