import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  performanceQuerySchema, portalCommissionsQuerySchema, portalCommissionsSchema, portalMeSchema, portalPayoutsSchema, portalPerformanceSchema,
  programParams, responses,
} from '../../api/index.js';
import type { AppDeps } from '../../app.js';
import { portalCommissions, portalMe, portalPayouts, portalPerformance } from '../../domain/portal.js';
import { partnerSessionAuth } from '../auth.js';

/** The partner portal's APIs (docs/behaviour.md §15.4–§15.8): a partner session only, scoped to its partner. */
export function portalRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const authenticate = partnerSessionAuth(deps);
    const partners = new WeakMap<FastifyRequest, number>();
    // onRequest runs before validation: a missing session is 401 even when the request is bad.
    app.addHook('onRequest', async (request) => {
      partners.set(request, await authenticate(request));
    });
    const partner = (request: FastifyRequest) => partners.get(request)!;
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
      (request) => portalCommissions(deps, partner(request), request.params.programId, request.query.status),
    );

    // GET /api/portal/programs/:programId/payouts
    app.get(
      '/api/portal/programs/:programId/payouts',
      { schema: { ...common, summary: "The partner's payouts in the program, by id", params: programParams, response: responses(portalPayoutsSchema) } },
      (request) => portalPayouts(deps, partner(request), request.params.programId),
    );
  };
}
