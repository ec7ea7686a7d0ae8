import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commissionSchema, fraudEventSchema, fraudEventsQuerySchema, programParams, resolveHeldRequestSchema, responses } from '../../api/index.js';
import { listFraudEvents, resolveHeld } from '../../domain/fraud.js';
import type { AppDeps } from '../deps.js';
import { authenticateEvery, sessionAuth } from '../auth.js';

/** Fraud events and held commissions (docs/fraud.md#api): a member's dashboard session or the admin token. */
export function fraudRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const viewer = authenticateEvery(app, sessionAuth(deps));
    const common = { tags: ['fraud'], security: [{ sessionToken: [] as string[] }, { adminToken: [] as string[] }] as Array<Record<string, string[]>> };

    // GET /api/programs/:programId/fraud-events
    app.get(
      '/api/programs/:programId/fraud-events',
      {
        schema: {
          ...common, summary: 'The fraud events of held commissions (or all), newest first', params: programParams, querystring: fraudEventsQuerySchema,
          response: responses(z.array(fraudEventSchema)),
        },
      },
      (request) => listFraudEvents(deps, viewer(request), request.params.programId, request.query.status),
    );

    for (const resolution of ['release', 'reject'] as const) {
      // POST /api/programs/:programId/fraud/release and /reject
      app.post(
        `/api/programs/:programId/fraud/${resolution}`,
        {
          schema: {
            ...common,
            summary: resolution === 'release' ? 'Release held commissions: back to pending' : 'Reject held commissions',
            params: programParams, body: resolveHeldRequestSchema, response: responses(z.array(commissionSchema)),
          },
        },
        (request) => resolveHeld(deps, viewer(request), request.params.programId, resolution, request.body),
      );
    }
  };
}
