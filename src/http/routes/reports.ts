import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { performanceQuerySchema, performanceReportSchema, programParams, responses } from '../../api/index.js';
import type { AppDeps } from '../../app.js';
import type { Viewer } from '../../domain/access.js';
import { performanceReport } from '../../domain/performance.js';
import { sessionAuth } from '../auth.js';

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
          response: responses(performanceReportSchema),
        },
      },
      (request) => performanceReport(deps, viewers.get(request)!, request.params.programId, request.query),
    );
  };
}
