import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  clickRequestSchema, clickResultSchema, CURRENCIES, leadRequestSchema, leadResultSchema, responses, saleRequestSchema, saleResultSchema, type SaleRequest,
} from '../../api/index.js';
import { AppError, invalidRequest } from '../../errors.js';
import { trackSale, type SaleOutcome } from '../../domain/track-sale.js';
import { trackClick, trackLead, type ClickOutcome, type LeadOutcome } from '../../domain/tracking.js';
import type { AppDeps } from '../../app.js';
import { apiKeyAuth } from '../auth.js';

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
        schema: {
          tags: ['tracking'],
          summary: 'Record a click on a referral link',
          body: clickRequestSchema,
          response: responses(clickResultSchema),
        },
      },
      async (request) => clickResponse(request.body.ref, await trackClick(deps, request.body)),
    );

    // POST /api/v1/track/lead: binds a customer key to the click's partner.
    app.post(
      '/api/v1/track/lead',
      {
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
      async (request) => leadResponse(request.body, await trackLead(deps, request.apiKey!, request.body)),
    );

    // POST /api/v1/track/sale: server-side only, so no CORS headers are ever sent.
    app.post(
      '/api/v1/track/sale',
      {
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
      async (request) => {
        const key = request.apiKey!;
        return saleResponse(request.body, await trackSale(deps, { programId: key.program_id, apiKeyId: key.id, keyMode: key.mode, source: 'api' }, request.body));
      },
    );
  };
}

// The outcomes of the tracking calls as responses: each refusal becomes its error here, once.

function clickResponse(ref: string, outcome: ClickOutcome) {
  if (outcome.kind === 'unknown_ref') throw new AppError('not_found', `No active referral link with ref ${ref}`);
  return { click_id: outcome.clickId };
}

function leadResponse(input: { click_id: string }, outcome: LeadOutcome) {
  switch (outcome.kind) {
    case 'recorded':
      return { success: true as const, customer_id: outcome.customerId, message: 'Lead tracked' };
    case 'existing':
      return { success: true as const, customer_id: outcome.customerId, message: 'Customer already tracked' };
    case 'test_mode':
      return { success: true as const, customer_id: null, message: 'Test mode: lead validated, nothing recorded' };
    case 'no_attribution':
      throw new AppError('no_attribution', 'click_id does not match a click of this program', { click_id: input.click_id });
  }
}

function saleResponse(request: SaleRequest, outcome: SaleOutcome) {
  switch (outcome.kind) {
    case 'recorded':
      return {
        success: true as const,
        sale_id: outcome.saleId,
        commission_id: outcome.commissionId,
        message: outcome.commissionId === null ? 'Sale recorded; the recurring commission period has ended' : 'Sale and commission recorded',
      };
    case 'test_recorded':
      return {
        success: true as const,
        message: 'Test sale recorded; no commission created',
        data: { eventId: outcome.eventId, programId: outcome.programId, test_mode: true as const },
      };
    case 'window_expired':
      return { success: true as const, sale_id: null, commission_id: null, message: 'Attribution window expired; no sale or commission recorded' };
    case 'duplicate':
      throw new AppError('duplicate_transaction', `Transaction ${request.transaction_id} was already recorded`, { sale_id: outcome.saleId });
    case 'refused':
      switch (outcome.reason) {
        case 'missing_fields':
          throw invalidRequest(outcome.fields.map((field) => ({ field, message: 'Required' })));
        case 'unsupported_currency':
          throw new AppError('unsupported_currency', `Currency ${outcome.currency} is not supported; use USD, EUR or VND`, {
            currency: outcome.currency,
            supported: CURRENCIES,
          });
        case 'no_attribution':
          throw new AppError('no_attribution', 'Neither customer_key nor click_id matches a customer of this program', {
            customer_key: outcome.customerKey,
            click_id: outcome.clickId,
          });
        case 'partner_inactive':
          throw new AppError('no_attribution', "The customer's partner is not active in this program", { customer_id: outcome.customerId });
      }
  }
}
