import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { meSchema, responses } from '../../api/index.js';
import type { AppDeps } from '../../app.js';
import { endSession, me } from '../../domain/sessions.js';
import { requiredBearer, sessionAuth } from '../auth.js';

/** Who a session is, and signing out (docs/behaviour.md §15.1, §15.2). */
export function sessionRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const authenticate = sessionAuth(deps);

    // GET /api/me
    app.get(
      '/api/me',
      {
        schema: {
          tags: ['sessions'],
          summary: 'The dashboard session\'s user and the programs it is an active member of (every program for the admin token)',
          security: [{ sessionToken: [] }, { adminToken: [] }],
          response: responses(meSchema),
        },
      },
      async (request) => me(deps, await authenticate(request)),
    );

    // DELETE /api/session
    app.delete(
      '/api/session',
      {
        schema: {
          tags: ['sessions'],
          summary: 'Sign out: the dashboard or partner session of the token is refused from now on',
          security: [{ sessionToken: [] }, { partnerSessionToken: [] }],
          response: { ...responses(z.null()), 204: z.null().describe('Signed out') },
        },
      },
      async (request, reply) => {
        await endSession(deps, requiredBearer(request, 'session token'));
        return reply.code(204).send(null);
      },
    );
  };
}
