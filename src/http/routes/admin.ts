import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  apiKeyParams, apiKeySchema, createApiKeyRequestSchema, createdApiKeySchema, createdProgramSchema,
  createPartnerRequestSchema, createPartnerSessionRequestSchema, createProgramRequestSchema, createSessionRequestSchema, DEFAULT_COMMISSION_PERCENT, enrollmentParams,
  enrollmentSchema, enrollPartnerRequestSchema, memberRequestSchema, membershipSchema, partnerLinksSchema, partnerParams, partnerSchema, partnerSessionSchema,
  productRuleRequestSchema, productRuleSchema, programParams, programSchema, responses, retiredApiKeySchema, revokedSessionsSchema, revokeSessionsRequestSchema, sessionSchema,
  updatePartnerRequestSchema, updateProgramRequestSchema, webhookEventSchema, webhookEventsQuerySchema, webhookSecretRequestSchema, webhookSecretSchema,
} from '../../api/index.js';
import type { AppDeps } from '../deps.js';
import { partnerLinks } from '../../domain/links.js';
import * as provisioning from '../../domain/provisioning.js';
import { commissionRuleFrom } from '../../domain/provisioning.js';
import { revokeSessions } from '../../domain/sessions.js';
import { listWebhookEvents, setWebhookSecret } from '../../domain/stripe/admin.js';
import { adminAuth, bearerToken } from '../auth.js';
import { backupFile } from '../../domain/backup.js';

const backupFileSchema = z.string().describe('a DuckDB database file: the snapshot, and a partnerkit_backup table with the admin token (docs/operations.md#backup-and-restore)');

/** The provisioning API behind the CLI; every route needs the instance admin token. */
export function adminRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', adminAuth(deps.adminTokenHash));
    const common = { tags: ['admin'], security: [{ adminToken: [] }] };

    // POST /api/admin/programs
    app.post(
      '/programs',
      {
        schema: {
          ...common,
          summary: 'Create a program with its live and test keys',
          body: createProgramRequestSchema,
          response: responses(createdProgramSchema),
        },
      },
      (request) => provisioning.createProgram(deps, { ...request.body, commission: commissionRuleFrom(request.body, DEFAULT_COMMISSION_PERCENT)! }),
    );

    // PATCH /api/admin/programs/:programId
    app.patch(
      '/programs/:programId',
      {
        schema: {
          ...common,
          summary: "Change a program's settings (every setting of create); new sales and commissions follow them",
          params: programParams,
          body: updateProgramRequestSchema,
          response: responses(programSchema),
        },
      },
      (request) => provisioning.updateProgram(deps, request.params.programId, { ...request.body, commission: commissionRuleFrom(request.body) }),
    );

    // GET /api/admin/backup
    app.get(
      '/backup',
      {
        schema: {
          ...common,
          summary: 'A consistent snapshot of the DuckDB data dir, as a file partnerkit restore fills a new data dir from',
          response: { ...responses(backupFileSchema), 200: { content: { 'application/octet-stream': { schema: backupFileSchema } } } },
        },
      },
      async (request, reply) =>
        // Streamed as it is, never serialized: the schema only documents it.
        reply.header('cache-control', 'no-store').type('application/octet-stream').send((await backupFile(deps, bearerToken(request)!)) as never),
    );

    // GET /api/admin/programs
    app.get('/programs', { schema: { ...common, summary: 'List programs', response: responses(z.array(programSchema)) } }, () =>
      provisioning.listPrograms(deps),
    );

    // GET /api/admin/programs/:programId
    app.get(
      '/programs/:programId',
      { schema: { ...common, summary: 'Show a program', params: programParams, response: responses(programSchema) } },
      (request) => provisioning.showProgram(deps, request.params.programId),
    );

    // POST /api/admin/programs/:programId/rules
    app.post(
      '/programs/:programId/rules',
      {
        schema: {
          ...common,
          summary: 'Add or replace a per-product commission rule',
          params: programParams,
          body: productRuleRequestSchema,
          response: responses(productRuleSchema),
        },
      },
      (request) => provisioning.addProductRule(deps, request.params.programId, request.body.productId, commissionRuleFrom(request.body)!),
    );

    // POST /api/admin/programs/:programId/keys
    app.post(
      '/programs/:programId/keys',
      {
        schema: {
          ...common,
          summary: 'Create an API key',
          params: programParams,
          body: createApiKeyRequestSchema,
          response: responses(createdApiKeySchema),
        },
      },
      (request) => provisioning.createApiKey(deps, request.params.programId, request.body.test ? 'test' : 'live'),
    );

    // GET /api/admin/programs/:programId/keys
    app.get(
      '/programs/:programId/keys',
      { schema: { ...common, summary: 'List API keys (never the secrets)', params: programParams, response: responses(z.array(apiKeySchema)) } },
      (request) => provisioning.listApiKeys(deps, request.params.programId),
    );

    // POST /api/admin/programs/:programId/keys/:keyId/retire
    app.post(
      '/programs/:programId/keys/:keyId/retire',
      { schema: { ...common, summary: 'Retire an API key', params: apiKeyParams, response: responses(retiredApiKeySchema) } },
      (request) => provisioning.retireApiKey(deps, request.params.programId, request.params.keyId),
    );

    // POST /api/admin/partners
    app.post(
      '/partners',
      { schema: { ...common, summary: 'Create a partner', body: createPartnerRequestSchema, response: responses(partnerSchema) } },
      (request) => provisioning.createPartner(deps, request.body),
    );

    // PATCH /api/admin/partners/:partnerId
    app.patch(
      '/partners/:partnerId',
      {
        schema: {
          ...common,
          summary: "Change a partner's name, e-mail, payout details or status (inactive ends its links, attribution and sessions)",
          params: partnerParams,
          body: updatePartnerRequestSchema,
          response: responses(partnerSchema),
        },
      },
      (request) => provisioning.updatePartner(deps, request.params.partnerId, request.body),
    );

    // POST /api/admin/programs/:programId/partners
    app.post(
      '/programs/:programId/partners',
      {
        schema: {
          ...common,
          summary: 'Enroll a partner in a program',
          params: programParams,
          body: enrollPartnerRequestSchema,
          response: responses(enrollmentSchema),
        },
      },
      (request) => provisioning.enrollPartner(deps, request.params.programId, request.body.partnerId),
    );

    // GET /api/admin/programs/:programId/partners/:partnerId
    app.get(
      '/programs/:programId/partners/:partnerId',
      {
        schema: {
          ...common,
          summary: "A partner's referral code and links in a program",
          params: enrollmentParams,
          response: responses(partnerLinksSchema),
        },
      },
      (request) => partnerLinks(deps, request.params.programId, request.params.partnerId),
    );

    // POST /api/admin/programs/:programId/members
    app.post(
      '/programs/:programId/members',
      {
        schema: {
          ...common,
          summary: 'Add (or reactivate) a workspace member',
          params: programParams,
          body: memberRequestSchema,
          response: responses(membershipSchema),
        },
      },
      (request) => provisioning.setMembership(deps, request.params.programId, request.body.email, 'active'),
    );

    // POST /api/admin/programs/:programId/members/remove
    app.post(
      '/programs/:programId/members/remove',
      {
        schema: {
          ...common,
          summary: "Deactivate a workspace member; every session of the user ends",
          params: programParams,
          body: memberRequestSchema,
          response: responses(membershipSchema),
        },
      },
      (request) => provisioning.setMembership(deps, request.params.programId, request.body.email, 'inactive'),
    );

    // POST /api/admin/sessions
    app.post(
      '/sessions',
      {
        schema: {
          ...common,
          summary: 'Create a dashboard session token for a user, and a one-time code for a sign-in link',
          body: createSessionRequestSchema,
          response: responses(sessionSchema),
        },
      },
      (request) => provisioning.createSession(deps, request.body.email, request.body.ttlHours),
    );

    // POST /api/admin/sessions/revoke
    app.post(
      '/sessions/revoke',
      {
        schema: {
          ...common,
          summary: "End every session of a user (by e-mail) or a partner, and their unused sign-in codes",
          body: revokeSessionsRequestSchema,
          response: responses(revokedSessionsSchema),
        },
      },
      (request) => revokeSessions(deps, request.body),
    );

    // POST /api/admin/partners/:partnerId/sessions
    app.post(
      '/partners/:partnerId/sessions',
      {
        schema: {
          ...common,
          summary: 'Create a partner portal session token for a partner, and a one-time code for a sign-in link',
          params: partnerParams,
          body: createPartnerSessionRequestSchema,
          response: responses(partnerSessionSchema),
        },
      },
      (request) => provisioning.createPartnerSession(deps, request.params.partnerId, request.body.ttlHours),
    );

    // GET /api/admin/programs/:programId/webhook-events
    app.get(
      '/programs/:programId/webhook-events',
      {
        schema: {
          ...common,
          summary: 'List received webhook events with their outcome, newest first',
          params: programParams,
          querystring: webhookEventsQuerySchema,
          response: responses(z.array(webhookEventSchema)),
        },
      },
      (request) => listWebhookEvents(deps, request.params.programId, request.query.limit),
    );

    // POST /api/admin/programs/:programId/webhook-secret
    app.post(
      '/programs/:programId/webhook-secret',
      {
        schema: {
          ...common,
          summary: "Use the signing secret Stripe shows for this program's webhook endpoint",
          params: programParams,
          body: webhookSecretRequestSchema,
          response: responses(webhookSecretSchema),
        },
      },
      (request) => setWebhookSecret(deps, request.params.programId, request.body.secret),
    );
  };
}
