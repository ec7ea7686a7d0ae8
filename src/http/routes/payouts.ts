import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  approveCommissionsRequestSchema, batchParams, commissionSchema, commissionsQuerySchema, exportFileSchema, exportQuerySchema, payoutBatchSchema,
  enrollmentParams, partnerLinksSchema, payoutParams, payoutPreviewSchema, programPartnerSchema, programPartnersQuerySchema, payoutSchema, payoutsQuerySchema, programParams, rejectCommissionsRequestSchema, responses,
  EXPORTED_PAYOUTS_HEADER, SKIP_REASONS_HEADER, SKIPPED_PAYOUTS_HEADER, TOTAL_COUNT_HEADER,
} from '../../api/index.js';
import type { AppDeps } from '../deps.js';
import { listCommissions, reviewCommissions } from '../../domain/commissions.js';
import { listProgramPartners, programPartnerLinks } from '../../domain/partners.js';
import { createPayouts, exportBatch, listPayouts, markBatchPaid, previewPayouts, settlePayout, showPayout } from '../../domain/payouts.js';
import { authenticateEvery, sessionAuth } from '../auth.js';

/** Commission review and payouts (docs/refunds-and-payouts.md#commission-approval-and-payouts): a member's dashboard session or the admin token. */
export function payoutRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const viewer = authenticateEvery(app, sessionAuth(deps));
    const common = { tags: ['payouts'], security: [{ sessionToken: [] as string[] }, { adminToken: [] as string[] }] as Array<Record<string, string[]>> };

    // GET /api/programs/:programId/commissions
    app.get(
      '/api/programs/:programId/commissions',
      {
        schema: {
          ...common,
          summary: "A program's commissions with their status as of now, by id",
          params: programParams,
          querystring: commissionsQuerySchema,
          response: responses(z.array(commissionSchema)),
        },
      },
      async (request, reply) => {
        const { limit, offset, ...filter } = request.query;
        const { data, total } = await listCommissions(deps, viewer(request), request.params.programId, filter, { limit, offset });
        reply.header(TOTAL_COUNT_HEADER, total);
        return data;
      },
    );

    // POST /api/programs/:programId/commissions/approve
    app.post(
      '/api/programs/:programId/commissions/approve',
      {
        schema: {
          ...common,
          summary: 'Approve pending commissions whose hold is over: all of them or none',
          params: programParams,
          body: approveCommissionsRequestSchema,
          response: responses(z.array(commissionSchema)),
        },
      },
      (request) => reviewCommissions(deps, viewer(request), request.params.programId, 'approve', request.body),
    );

    // POST /api/programs/:programId/commissions/reject
    app.post(
      '/api/programs/:programId/commissions/reject',
      {
        schema: {
          ...common,
          summary: 'Reject pending or approved commissions, with an optional reason: all of them or none',
          params: programParams,
          body: rejectCommissionsRequestSchema,
          response: responses(z.array(commissionSchema)),
        },
      },
      (request) => reviewCommissions(deps, viewer(request), request.params.programId, 'reject', request.body),
    );

    // GET /api/programs/:programId/partners
    app.get(
      '/api/programs/:programId/partners',
      {
        schema: {
          ...common,
          summary: "A program's partners with their names, e-mails and referral codes, by partner id; q finds them by name or e-mail",
          params: programParams,
          querystring: programPartnersQuerySchema,
          response: responses(z.array(programPartnerSchema)),
        },
      },
      (request) => listProgramPartners(deps, viewer(request), request.params.programId, request.query.q),
    );

    // GET /api/programs/:programId/partners/:partnerId
    app.get(
      '/api/programs/:programId/partners/:partnerId',
      {
        schema: { ...common, summary: "A partner's referral code and links in the program", params: enrollmentParams, response: responses(partnerLinksSchema) },
      },
      (request) => programPartnerLinks(deps, viewer(request), request.params.programId, request.params.partnerId),
    );

    // GET /api/programs/:programId/payouts/preview
    app.get(
      '/api/programs/:programId/payouts/preview',
      {
        schema: { ...common, summary: 'What payout create would pay now, and the balances that wait', params: programParams, response: responses(payoutPreviewSchema) },
      },
      (request) => previewPayouts(deps, viewer(request), request.params.programId),
    );

    // POST /api/programs/:programId/payouts
    app.post(
      '/api/programs/:programId/payouts',
      {
        schema: {
          ...common,
          summary: 'Pay every due balance: one payout per partner and currency, in one batch',
          params: programParams,
          response: responses(payoutBatchSchema),
        },
      },
      (request) => createPayouts(deps, viewer(request), request.params.programId),
    );

    // GET /api/programs/:programId/payouts
    app.get(
      '/api/programs/:programId/payouts',
      {
        schema: {
          ...common,
          summary: "A program's payouts, by id",
          params: programParams,
          querystring: payoutsQuerySchema,
          response: responses(z.array(payoutSchema)),
        },
      },
      (request) => listPayouts(deps, viewer(request), request.params.programId, request.query.status),
    );

    // GET /api/payouts/:payoutId
    app.get(
      '/api/payouts/:payoutId',
      { schema: { ...common, summary: 'Show a payout', params: payoutParams, response: responses(payoutSchema) } },
      (request) => showPayout(deps, viewer(request), request.params.payoutId),
    );

    // POST /api/payouts/:payoutId/mark-paid
    app.post(
      '/api/payouts/:payoutId/mark-paid',
      { schema: { ...common, summary: 'Mark a processing payout and its commissions paid', params: payoutParams, response: responses(payoutSchema) } },
      (request) => settlePayout(deps, viewer(request), request.params.payoutId, 'paid'),
    );

    // POST /api/payouts/:payoutId/cancel
    app.post(
      '/api/payouts/:payoutId/cancel',
      {
        schema: { ...common, summary: 'Cancel a processing payout: its commissions are approved again', params: payoutParams, response: responses(payoutSchema) },
      },
      (request) => settlePayout(deps, viewer(request), request.params.payoutId, 'canceled'),
    );

    // POST /api/payout-batches/:batchId/mark-paid
    app.post(
      '/api/payout-batches/:batchId/mark-paid',
      {
        schema: { ...common, summary: 'Mark every processing payout of a batch paid', params: batchParams, response: responses(payoutBatchSchema) },
      },
      (request) => markBatchPaid(deps, viewer(request), request.params.batchId),
    );

    // GET /api/payout-batches/:batchId/export: text/csv; headers name the payouts in it and the ones left out.
    app.get(
      '/api/payout-batches/:batchId/export',
      {
        schema: {
          ...common,
          summary: "A batch's processing payouts as CSV, a PayPal Payouts file or a Wise batch file",
          params: batchParams,
          querystring: exportQuerySchema,
          response: responses(exportFileSchema),
        },
      },
      async (request, reply) => {
        const { format, currency } = request.query;
        const { file, exported, skipped } = await exportBatch(deps, viewer(request), request.params.batchId, format, currency);
        return reply
          .header(EXPORTED_PAYOUTS_HEADER, exported.join(','))
          .header(SKIPPED_PAYOUTS_HEADER, skipped.map((s) => s.payoutId).join(','))
          .header(SKIP_REASONS_HEADER, skipped.map((s) => s.reason).join(','))
          .header('content-disposition', `attachment; filename="payout-batch-${request.params.batchId}-${format}.csv"`)
          .type('text/csv; charset=utf-8')
          .send(file);
      },
    );
  };
}
