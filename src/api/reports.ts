import { z } from 'zod';
import { PERIODS } from './constants.js';

export const isoBound = z
  .union([z.iso.date(), z.iso.datetime({ offset: true, local: true })])
  .describe('ISO 8601 date (a whole UTC day) or date-time (UTC when it has no offset)');

export const performanceQuerySchema = z.object({
  period: z.enum(PERIODS).optional().describe('7d, 30d, 90d or all (default 7d); ignored with dateFrom and dateTo'),
  dateFrom: isoBound.optional(),
  dateTo: isoBound.optional(),
});

const trendSchema = z.object({ trend: z.number(), trendDirection: z.enum(['up', 'down', 'stable']) });

const performanceDaySchema = z.object({
  date: z.string(),
  period: z.string(),
  clicks: z.number().int(),
  leads: z.number().int(),
  conversions: z.number().int(),
  revenue: z.number(),
  partners: z.number().int(),
  sales: z.number().int(),
  commission: z.number(),
});

const reportMetaSchema = z.object({
  period: z.enum([...PERIODS, 'custom']),
  dateFrom: z.string(),
  dateTo: z.string(),
});

export const performanceReportSchema = z.object({
  data: z.array(performanceDaySchema),
  metrics: z.object({
    totalClicks: z.number().int(),
    totalLeads: z.number().int(),
    totalConversions: z.number().int(),
    totalRevenue: z.number(),
    conversionRate: z.number(),
    averageOrderValue: z.number(),
    totalPartners: z.number().int(),
    totalSales: z.number().int(),
    totalPartnersCommission: z.number(),
    totalRefunded: z.number().describe('Dollars refunded in the period, dated by when each refund was received'),
    clicksTrend: trendSchema,
    leadsTrend: trendSchema,
    conversionsTrend: trendSchema,
    revenueTrend: trendSchema,
    partnersTrend: trendSchema,
    salesTrend: trendSchema,
    commissionTrend: trendSchema,
    refundedTrend: trendSchema,
  }),
  meta: reportMetaSchema.extend({ previousPeriod: z.object({ dateFrom: z.string(), dateTo: z.string() }) }),
});

const partnerRowSchema = z.object({
  partnerId: z.number().int(),
  name: z.string(),
  refCode: z.string(),
  clicks: z.number().int(),
  leads: z.number().int().describe('Customers signed up in the period whose status is still lead (as the program report\'s totalLeads)'),
  conversions: z.number().int(),
  sales: z.number().int(),
  codeSales: z.number().int().describe('Sales in the period that a promotion code attributed'),
  revenue: z.number(),
  commission: z.number(),
  conversionRate: z.number().describe('conversions × 100 ÷ clicks, 2 decimals; 0 without clicks'),
});

/** Every partner of the program over the period, by revenue then clicks; the columns add up to the program report's totals. */
export const partnerReportSchema = z.object({ data: z.array(partnerRowSchema), meta: reportMetaSchema });

export type PerformanceQuery = z.input<typeof performanceQuerySchema>;
export type Trend = z.output<typeof trendSchema>;
export type PerformanceDay = z.output<typeof performanceDaySchema>;
export type PerformanceReport = z.output<typeof performanceReportSchema>;
export type PartnerReportRow = z.output<typeof partnerRowSchema>;
export type PartnerReport = z.output<typeof partnerReportSchema>;
