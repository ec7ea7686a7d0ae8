import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  performanceQuerySchema, portalCommissionsQuerySchema, portalCommissionsSchema, portalMeSchema, portalPayoutsSchema, portalPerformanceSchema,
  programParams, responses, TOTAL_COUNT_HEADER,
} from '../../api/index.js';
import type { AppDeps } from '../deps.js';
import { portalCommissions, portalMe, portalPayouts, portalPerformance } from '../../domain/portal.js';
import { authenticateEvery, partnerSessionAuth } from '../auth.js';

/** The partner portal's APIs (docs/pages.md#session-apis): a partner session only, scoped to its partner. */
export function portalRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const partner = authenticateEvery(app, partnerSessionAuth(deps));
    const common = { tags: ['portal'], security: [{ partnerSessionToken: [] as string[] }] };

    // GET /api/portal/me
    app.get(
      '/api/portal/me',
      { schema: { ...common, summary: "The partner and its programs with its links", response: responses(portalMeSchema) } },
      // The links are made absolute on the address the partner's request reached (behind a proxy, with --trust-proxy, the forwarded one).
      (request) => portalMe(deps, partner(request), `${request.protocol}://${request.host}`),
    );

    // GET /api/portal/programs/:programId/performance
    app.get(
      '/api/portal/programs/:programId/performance',
      {
        schema: {
          ...common,
          summary: "The partner's own clicks, leads, conversions, sales, revenue and commission, per day and in total",
          params: programParams,
          querystring: performanceQuerySchema,
          response: responses(portalPerformanceSchema),
        },
      },
      (request) => portalPerformance(deps, partner(request), request.params.programId, request.query),
    );

    // GET /api/portal/programs/:programId/commissions
    app.get(
      '/api/portal/programs/:programId/commissions',
      {
        schema: {
          ...common,
          summary: "The partner's commissions in the program with their status as of now, by id",
          params: programParams,
          querystring: portalCommissionsQuerySchema,
          response: responses(portalCommissionsSchema),
        },
      },
      async (request, reply) => {
        const { status, limit, offset } = request.query;
        const { total, ...body } = await portalCommissions(deps, partner(request), request.params.programId, status, { limit, offset });
        reply.header(TOTAL_COUNT_HEADER, total);
        return body;
      },
    );

    // GET /api/portal/programs/:programId/payouts
    app.get(
      '/api/portal/programs/:programId/payouts',
      { schema: { ...common, summary: "The partner's payouts in the program, by id", params: programParams, response: responses(portalPayoutsSchema) } },
      (request) => portalPayouts(deps, partner(request), request.params.programId),
    );
  };
}
