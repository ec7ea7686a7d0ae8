import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  clickRequestSchema, clickResultSchema, CURRENCIES, leadRequestSchema, leadResultSchema, partnerLinkParams, partnerLinkQuerySchema,
  refundRequestSchema, refundResultSchema, responses, saleRequestSchema, saleResultSchema, type RefundRequest, type SaleRequest,
} from '../../api/index.js';
import { AppError, invalidRequest } from '../../errors.js';
import { followPartnerLink } from '../../domain/links.js';
import { trackRefund, type RefundOutcome } from '../../domain/track-refund.js';
import { trackSale, type SaleOutcome } from '../../domain/track-sale.js';
import { trackClick, trackLead, type ClickOutcome, type LeadOutcome } from '../../domain/tracking.js';
import type { AppDeps } from '../deps.js';
import { LINK_PAGES } from '../../web/link-pages.js';
import { apiKeyAuth, optionalApiKeyAuth } from '../auth.js';
import { closeConnectionsOverLimit, failedAuthentications, trackingRateLimit } from '../rate-limits.js';

export function trackingRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const failures = failedAuthentications(app, deps.authFailureLimit);
    const authenticate = apiKeyAuth(deps, failures);
    const rateLimit = trackingRateLimit({ perKey: deps.rateLimit, perAddress: deps.clicks.rateLimit });
    // One counter for every click a browser makes: through the click endpoint or a partner link.
    const clickLimit = app.rateLimit({ ...rateLimit, groupId: 'clicks' });
    closeConnectionsOverLimit(app);

    // POST /api/v1/track/click: from the merchant's pages (CORS allowed), or from its backend with the program's API key.
    app.post(
      '/api/v1/track/click',
      {
        onRequest: [optionalApiKeyAuth(deps, failures), clickLimit],
        schema: {
          tags: ['tracking'],
          summary: 'Record a click on a referral link',
          description: "Public; with the program's API key a server-side click that may name its visitor (ip, user_agent).",
          security: [{}, { apiKey: [] }],
          body: clickRequestSchema,
          response: responses(clickResultSchema),
        },
      },
      async (request) => {
        const sender = { apiKey: request.apiKey, ip: request.ip, userAgent: request.headers['user-agent'] };
        return clickResponse(request.body.ref, await trackClick(deps, sender, request.body));
      },
    );

    // A partner link over the client address's click limit still sends its visitor to the landing
    // page, without a click: a link must never strand a customer on an error (docs/tracking.md#partner-links-get-rrefcode).
    const overLimit = new WeakSet<FastifyRequest>();

    // GET /r/:refCode: a partner link; records the click as the endpoint above does and redirects to the landing page.
    app.get(
      '/r/:refCode',
      {
        onRequest: async function (request, reply) {
          try {
            await clickLimit.call(this, request, reply);
          } catch (error) {
            if (!(error instanceof AppError && error.code === 'rate_limited')) throw error;
            overLimit.add(request);
            void reply.removeHeader('retry-after');
          }
        },
        schema: { hide: true, params: partnerLinkParams, querystring: partnerLinkQuerySchema },
      },
      async (request, reply) => {
        const outcome = await followPartnerLink(deps, {
          refCode: request.params.refCode,
          to: request.query.to,
          ip: request.ip,
          userAgent: request.headers['user-agent'],
          referrer: request.headers.referer,
          // HEAD (link checkers, previews) follows without a click.
          recordClick: request.method === 'GET' && !overLimit.has(request),
        });
        // Every visit must reach the server: a cached redirect would carry another visit's click id.
        void reply.header('cache-control', 'no-store');
        if (outcome.kind === 'redirect') return reply.redirect(outcome.location, 302);
        return reply.code(404).type('text/html; charset=utf-8').send(LINK_PAGES[outcome.kind]);
      },
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

    // POST /api/v1/track/refund: a refund of a recorded sale, and its effect on the sale's commission.
    app.post(
      '/api/v1/track/refund',
      {
        onRequest: authenticate,
        config: { rateLimit },
        schema: {
          tags: ['tracking'],
          summary: 'Record a refund of a sale and adjust its commission',
          description: 'A full refund reverses a commission not yet in a payout; a commission already in one gets a clawback.',
          security: [{ apiKey: [] }],
          body: refundRequestSchema,
          response: responses(refundResultSchema),
        },
      },
      async (request) => {
        const key = request.apiKey!;
        return refundResponse(request.body, await trackRefund(deps, { programId: key.program_id, mode: key.mode, source: 'api' }, request.body));
      },
    );
  };
}

// The outcomes of the tracking calls as responses: each refusal becomes its error here, once.

function clickResponse(ref: string, outcome: ClickOutcome) {
  switch (outcome.kind) {
    case 'recorded':
    case 'repeated':
      return { click_id: outcome.clickId };
    case 'unknown_ref':
      throw new AppError('not_found', `No active referral link with ref ${ref}`);
    case 'visitor_needs_key':
      throw invalidRequest(outcome.fields.map((field) => ({ field, message: "Only a server-side click, sent with the program's API key, names its visitor" })));
  }
}

/** What no_attribution says: a code that attributes nothing is named (docs/promotion-codes.md#attribution-by-code). */
function noAttributionMessage(couponCode: string | null): string {
  if (couponCode === null) return 'Neither customer_key nor click_id matches a customer of this program';
  return `Neither customer_key nor click_id matches a customer of this program, and coupon_code ${couponCode} is no active promotion code of it`;
}

function leadResponse(input: { click_id?: string; coupon_code?: string }, outcome: LeadOutcome) {
  switch (outcome.kind) {
    case 'recorded':
      return { success: true as const, customer_id: outcome.customerId, message: 'Lead tracked' };
    case 'existing':
      return { success: true as const, customer_id: outcome.customerId, message: 'Customer already tracked' };
    case 'test_mode':
      return { success: true as const, customer_id: null, message: 'Test mode: lead validated, nothing recorded' };
    case 'no_attribution':
      throw new AppError(
        'no_attribution',
        input.coupon_code === undefined
          ? 'click_id does not match a click of this program'
          : `click_id does not match a click of this program, and coupon_code ${input.coupon_code} is no active promotion code of it`,
        { click_id: input.click_id ?? null, coupon_code: input.coupon_code ?? null },
      );
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
          throw new AppError('no_attribution', noAttributionMessage(outcome.couponCode), {
            customer_key: outcome.customerKey,
            click_id: outcome.clickId,
            coupon_code: outcome.couponCode,
          });
        case 'partner_inactive':
          throw new AppError('no_attribution', "The customer's partner is not active in this program", { customer_id: outcome.customerId });
      }
  }
}

function refundResponse(request: RefundRequest, outcome: RefundOutcome) {
  switch (outcome.kind) {
    case 'recorded':
      return {
        success: true as const,
        refund_id: outcome.refundId,
        sale_id: outcome.saleId,
        refunded_cents: outcome.refundedCents,
        remaining_cents: outcome.remainingCents,
        commission_id: outcome.commission?.id ?? null,
        commission_status: outcome.commission?.status ?? null,
        clawback_commission_id: outcome.clawbackId,
      };
    case 'duplicate':
      throw new AppError('duplicate_refund', `Refund ${request.refund_id} was already recorded`, { refund_id: outcome.refundId });
    case 'sale_not_found':
      throw new AppError('sale_not_found', `No sale with transaction_id ${request.transaction_id} in this program`, { transaction_id: request.transaction_id });
    case 'exceeds_sale':
    case 'nothing_left':
      throw new AppError('refund_exceeds_sale', `The refund exceeds what is left of the sale (${outcome.remainingCents} cents)`, {
        remaining_cents: outcome.remainingCents,
      });
  }
}
