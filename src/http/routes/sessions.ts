import type { RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  EMAIL_LINK_LIMITS,
  emailLinkAcceptedSchema,
  emailLinkRequestSchema,
  acceptedResponses,
  exchangedSessionSchema,
  exchangeSignInCodeRequestSchema,
  meSchema,
  noContentResponses,
  responses,
} from '../../api/index.js';
import type { AppDeps } from '../deps.js';
import { EMAIL_LINK_MESSAGE, mailSignInLink } from '../../domain/mail/sign-in-link.js';
import { endSession, exchangeSignInCode, me } from '../../domain/sessions.js';
import { requiredBearer, sessionAuth } from '../auth.js';

/** Signing in with a link's code, who a session is, and signing out (docs/sessions.md, docs/pages.md#get-apime, docs/pages.md#delete-apisession-sign-out). */
export function sessionRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const authenticate = sessionAuth(deps);
    // Sign-in links mailed per address and per client address in an hour (docs/mail.md#sign-in-by-e-mail);
    // groupId names the counter on a shared store, which createRateLimit's types leave out.
    const window = EMAIL_LINK_LIMITS.windowSeconds * 1000;
    const perClient = app.createRateLimit({ max: EMAIL_LINK_LIMITS.perClient, timeWindow: window, groupId: 'email-link-client' } as RateLimitOptions);
    const perEmail = app.createRateLimit({
      max: EMAIL_LINK_LIMITS.perEmail,
      timeWindow: window,
      groupId: 'email-link-address',
      keyGenerator: (request) => (request.body as { email: string }).email.toLowerCase(),
    } as RateLimitOptions);

    // POST /api/sessions/email-link
    app.post(
      '/api/sessions/email-link',
      {
        schema: {
          tags: ['sessions'],
          summary: 'Mails a sign-in link to a member or a partner; always 202 with the same body (no account enumeration), at most 5 an hour per address and 20 per client',
          body: emailLinkRequestSchema,
          response: acceptedResponses(emailLinkAcceptedSchema),
        },
      },
      async (request, reply) => {
        const over = [await perClient(request), await perEmail(request)].some((state) => !state.isAllowed && state.isExceeded);
        // Over a limit the answer stays the same: only nothing is sent.
        if (!over) await mailSignInLink(deps, request.body.email, request.body.audience);
        return reply.code(202).send({ message: EMAIL_LINK_MESSAGE });
      },
    );

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
