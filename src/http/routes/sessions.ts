import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { exchangedSessionSchema, exchangeSignInCodeRequestSchema, meSchema, noContentResponses, responses } from '../../api/index.js';
import type { AppDeps } from '../deps.js';
import { endSession, exchangeSignInCode, me } from '../../domain/sessions.js';
import { requiredBearer, sessionAuth } from '../auth.js';

/** Signing in with a link's code, who a session is, and signing out (docs/sessions.md, docs/pages.md#get-apime, docs/pages.md#delete-apisession-sign-out). */
export function sessionRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const authenticate = sessionAuth(deps);

    // POST /api/sessions/exchange
    app.post(
      '/api/sessions/exchange',
      {
        schema: {
          tags: ['sessions'],
          summary: "A sign-in link's one-time code for a session token: once, within 15 minutes of the link",
          body: exchangeSignInCodeRequestSchema,
          response: responses(exchangedSessionSchema),
        },
      },
      (request) => exchangeSignInCode(deps, request.body.code),
    );

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
          response: noContentResponses(),
        },
      },
      async (request, reply) => {
        await endSession(deps, requiredBearer(request, 'session token'));
        return reply.code(204).send(null);
      },
    );
  };
}
