import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { clickRequestSchema, clickResultSchema, leadRequestSchema, leadResultSchema, responses, saleResultSchema } from '../../api/index.js';
import { AppError } from '../../errors.js';
import { saleRequestSchema } from '../../domain/sale-request.js';
import { trackSale } from '../../domain/track-sale.js';
import { trackClick, trackLead } from '../../domain/tracking.js';
import type { AppDeps } from '../../app.js';
import { apiKeyAuth } from '../auth.js';

/** The tracking API accepts at most 64 KiB per request. */
export const TRACKING_BODY_LIMIT = 64 * 1024;

export function trackingRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const authenticate = apiKeyAuth(deps);
    const rateLimit = {
      max: deps.rateLimit.max,
      timeWindow: deps.rateLimit.windowSeconds * 1000,
      // Runs after authenticate (both onRequest; the plugin appends its hook), keyed by API key.
      keyGenerator: (request: { apiKey: { id: number } | null; ip: string }) => String(request.apiKey?.id ?? request.ip),
      errorResponseBuilder: (_request: unknown, context: { ttl: number }) => {
        const seconds = Math.max(1, Math.ceil(context.ttl / 1000));
        return new AppError('rate_limited', `Too many requests for this API key; retry in ${seconds} s`, null, {
          retry_after_seconds: seconds,
        });
      },
    };

    // POST /api/v1/track/click: public, called from the merchant's pages (CORS allowed).
    app.post(
      '/api/v1/track/click',
      {
        bodyLimit: TRACKING_BODY_LIMIT,
        schema: {
          tags: ['tracking'],
          summary: 'Record a click on a referral link',
          body: clickRequestSchema,
          response: responses(clickResultSchema),
        },
      },
      (request) => trackClick(deps, request.body),
    );

    // POST /api/v1/track/lead: binds a customer key to the click's partner.
    app.post(
      '/api/v1/track/lead',
      {
        bodyLimit: TRACKING_BODY_LIMIT,
        onRequest: authenticate,
        config: { rateLimit },
        schema: {
          tags: ['tracking'],
          summary: 'Record a signup (lead) for a click',
          security: [{ apiKey: [] }],
          body: leadRequestSchema,
          response: responses(leadResultSchema),
        },
      },
      (request) => trackLead(deps, request.apiKey!, request.body),
    );

    // POST /api/v1/track/sale: server-side only, so no CORS headers are ever sent.
    app.post(
      '/api/v1/track/sale',
      {
        bodyLimit: TRACKING_BODY_LIMIT,
        onRequest: authenticate,
        config: { rateLimit },
        schema: {
          tags: ['tracking'],
          summary: 'Record a sale and create the partner commission',
          security: [{ apiKey: [] }],
          body: saleRequestSchema(deps.clock),
          response: responses(saleResultSchema),
        },
      },
      (request) => {
        const key = request.apiKey!;
        return trackSale(deps, { programId: key.program_id, apiKeyId: key.id, keyMode: key.mode, source: 'api' }, request.body);
      },
    );
  };
}
