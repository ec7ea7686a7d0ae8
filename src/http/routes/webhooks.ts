import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { programParams, responses, stripeEventRequestSchema, webhookResultSchema } from '../../api/index.js';
import type { AppDeps } from '../deps.js';
import { receiveStripeWebhook } from '../../domain/stripe/receive.js';

/** Stripe's events are far below this; the API's usual 64 KiB would refuse large invoices. */
export const WEBHOOK_BODY_LIMIT = 1024 * 1024;

/**
 * The Stripe receiver, in a plugin of its own: its JSON parser hands the raw bytes to the signature
 * check. The webhook admin routes are in admin.ts.
 */
export function webhookRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    // POST /api/v1/webhooks/stripe/:programId: Stripe's connected webhook (docs/webhooks.md#stripe-webhooks-incoming).
    app.post(
      '/api/v1/webhooks/stripe/:programId',
      {
        bodyLimit: WEBHOOK_BODY_LIMIT,
        schema: {
          tags: ['webhooks'],
          summary: 'Receive a Stripe event, verified with the program webhook secret',
          params: programParams,
          body: stripeEventRequestSchema,
          response: responses(webhookResultSchema),
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
