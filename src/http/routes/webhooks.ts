import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app.js';
import { listWebhookEvents, receiveStripeWebhook, setWebhookSecret } from '../../domain/stripe/receive.js';
import { adminAuth } from '../auth.js';
import { errorResponses } from '../openapi.js';

/** Stripe's events are far below this; the tracking API's 64 KiB would refuse large invoices. */
export const WEBHOOK_BODY_LIMIT = 1024 * 1024;

const id = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

const webhookResult = z.object({
  received: z.literal(true),
  event_id: z.string(),
  type: z.string(),
  outcome: z.enum(['recorded', 'skipped', 'ignored']),
  reason: z.string().nullable(),
  sale_id: z.number().int().nullable(),
  redelivery: z.boolean(),
});

/** The receiver: its own JSON parser hands the raw bytes to the signature check. */
function stripeReceiver(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    // POST /api/v1/webhooks/stripe/:programId: Stripe's connected webhook (§6, DECISIONS §5).
    app.post(
      '/api/v1/webhooks/stripe/:programId',
      {
        bodyLimit: WEBHOOK_BODY_LIMIT,
        schema: {
          tags: ['webhooks'],
          summary: 'Receive a Stripe event, verified with the program webhook secret',
          params: z.object({ programId: id }),
          response: { 200: webhookResult, ...errorResponses },
        },
      },
      (request) => {
        const signature = request.headers['stripe-signature'];
        const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        return receiveStripeWebhook(deps, request.params.programId, rawBody, typeof signature === 'string' ? signature : undefined);
      },
    );
  };
}

function webhookEventRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', adminAuth(deps.adminTokenHash));

    // GET /api/admin/programs/:programId/webhook-events
    app.get(
      '/programs/:programId/webhook-events',
      {
        schema: {
          tags: ['admin'],
          security: [{ adminToken: [] }],
          summary: 'List received webhook events with their outcome, newest first',
          params: z.object({ programId: id }),
          querystring: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(50) }),
        },
      },
      (request) => listWebhookEvents(deps, request.params.programId, request.query.limit),
    );

    // POST /api/admin/programs/:programId/webhook-secret
    app.post(
      '/programs/:programId/webhook-secret',
      {
        schema: {
          tags: ['admin'],
          security: [{ adminToken: [] }],
          summary: "Use the signing secret Stripe shows for this program's webhook endpoint",
          params: z.object({ programId: id }),
          body: z.object({ secret: z.string().regex(/^whsec_[A-Za-z0-9_-]{8,250}$/, 'a Stripe signing secret, whsec_…') }),
        },
      },
      (request) => setWebhookSecret(deps, request.params.programId, request.body.secret),
    );
  };
}

/** Stripe webhooks and their admin listing. */
export function webhookRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    await app.register(stripeReceiver(deps));
    await app.register(webhookEventRoutes(deps), { prefix: '/api/admin' });
  };
}
