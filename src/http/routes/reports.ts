import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { partnerReportSchema, performanceQuerySchema, performanceReportSchema, programParams, responses } from '../../api/index.js';
import type { AppDeps } from '../deps.js';
import type { Viewer } from '../../domain/access.js';
import { partnerReport, performanceReport } from '../../domain/performance.js';
import { sessionAuth } from '../auth.js';

/** The program reports: per day, and per partner. */
export function reportRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const authenticate = sessionAuth(deps);
    const viewers = new WeakMap<FastifyRequest, Viewer>();

    /** Both reports take the same credential, path and query: dashboard session or admin token; 401, 400, 404, 403 in that order. */
    const reportRoute = <T extends z.ZodType>(summary: string, body: T) => ({
      // onRequest runs before validation, so a missing session is 401 even when the query is bad.
      onRequest: async (request: FastifyRequest) => {
        viewers.set(request, await authenticate(request));
      },
      schema: {
        tags: ['reports'],
        summary,
        security: [{ sessionToken: [] }, { adminToken: [] }] as Array<Record<string, string[]>>,
        params: programParams,
        querystring: performanceQuerySchema,
        response: responses(body),
      },
    });

    // GET /api/tracking/performance/:programId
    app.get(
      '/api/tracking/performance/:programId',
      reportRoute('Per-day aggregates and period-over-period trends of a program', performanceReportSchema),
      (request) => performanceReport(deps, viewers.get(request)!, request.params.programId, request.query),
    );

    // GET /api/tracking/performance/:programId/partners
    app.get(
      '/api/tracking/performance/:programId/partners',
      reportRoute("Each partner's clicks, leads, conversions, sales, revenue and commission over the period", partnerReportSchema),
      (request) => partnerReport(deps, viewers.get(request)!, request.params.programId, request.query),
    );
  };
}
