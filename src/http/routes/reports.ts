import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app.js';
import { performanceReport, PERIODS, type Viewer } from '../../domain/performance.js';
import { sessionAuth } from '../auth.js';
import { errorResponses } from '../openapi.js';
import { programParams } from '../params.js';

const isoBound = z
  .union([z.iso.date(), z.iso.datetime({ offset: true, local: true })])
  .describe('ISO 8601 date (a whole UTC day) or date-time (UTC when it has no offset)');

export const performanceQuerySchema = z.object({
  period: z.enum(PERIODS).optional().describe('7d, 30d, 90d or all (default 7d); ignored with dateFrom and dateTo'),
  dateFrom: isoBound.optional(),
  dateTo: isoBound.optional(),
});

const trend = z.object({ trend: z.number(), trendDirection: z.enum(['up', 'down', 'stable']) });

export const performanceReportSchema = z.object({
  data: z.array(
    z.object({
      date: z.string(),
      period: z.string(),
      clicks: z.number().int(),
      leads: z.number().int(),
      conversions: z.number().int(),
      revenue: z.number(),
      partners: z.number().int(),
      sales: z.number().int(),
      commission: z.number(),
    }),
  ),
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
    clicksTrend: trend,
    leadsTrend: trend,
    conversionsTrend: trend,
    revenueTrend: trend,
    partnersTrend: trend,
    salesTrend: trend,
    commissionTrend: trend,
  }),
  meta: z.object({
    period: z.enum([...PERIODS, 'custom']),
    dateFrom: z.string(),
    dateTo: z.string(),
    previousPeriod: z.object({ dateFrom: z.string(), dateTo: z.string() }),
  }),
});

/** The performance report. */
export function reportRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const authenticate = sessionAuth(deps);
    const viewers = new WeakMap<FastifyRequest, Viewer>();

    // GET /api/tracking/performance/:programId: dashboard session or admin token; 401, 400, 404, 403 in that order.
    app.get(
      '/api/tracking/performance/:programId',
      {
        // onRequest runs before validation, so a missing session is 401 even when the query is bad.
        onRequest: async (request) => {
          viewers.set(request, await authenticate(request));
        },
        schema: {
          tags: ['reports'],
          summary: 'Per-day aggregates and period-over-period trends of a program',
          security: [{ sessionToken: [] }, { adminToken: [] }],
          params: programParams,
          querystring: performanceQuerySchema,
          response: { 200: performanceReportSchema, ...errorResponses },
        },
      },
      (request) => performanceReport(deps, viewers.get(request)!, request.params.programId, request.query),
    );
  };
}
