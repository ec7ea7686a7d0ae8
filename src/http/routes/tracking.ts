import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AppError, invalidRequest } from '../../errors.js';
import { CURRENCIES, saleRequestSchema, type SaleRequest } from '../../domain/sale-request.js';
import { trackSale, type SaleOutcome } from '../../domain/track-sale.js';
import { trackClick, trackLead, type ClickOutcome, type LeadOutcome } from '../../domain/tracking.js';
import type { AppDeps } from '../../app.js';
import { apiKeyAuth } from '../auth.js';
import { errorResponses } from '../openapi.js';

const key = z.string().min(1).max(255);

export const clickRequestSchema = z.object({
  ref: key.describe("The partner's referral code"),
  landing_url: z.string().max(2048).optional(),
  referrer: z.string().max(2048).optional(),
  test: z.boolean().optional().describe('A test click, never counted in reports'),
});

export const leadRequestSchema = z.object({
  customer_key: key.describe("The merchant's stable id for this customer"),
  click_id: key.describe('The partner_click_id cookie value'),
  email: z.email().max(255).optional(),
  name: z.string().min(1).max(255).optional(),
});

const liveSaleResponse = z.object({
  success: z.literal(true),
  sale_id: z.number().int().nullable(),
  commission_id: z.number().int().nullable(),
  message: z.string(),
});
const testSaleResponse = z.object({
  success: z.literal(true),
  message: z.string(),
  data: z.object({ eventId: z.number().int(), programId: z.number().int(), test_mode: z.literal(true) }),
});

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
          response: { 200: z.object({ click_id: z.string() }), ...errorResponses },
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
          response: {
            200: z.object({ success: z.literal(true), customer_id: z.number().int().nullable(), message: z.string() }),
            ...errorResponses,
          },
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
          response: { 200: z.union([liveSaleResponse, testSaleResponse]), ...errorResponses },
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
