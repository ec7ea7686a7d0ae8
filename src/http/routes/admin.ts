import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app.js';
import { percentToBasisPoints } from '../../domain/commission.js';
import * as provisioning from '../../domain/provisioning.js';
import { listWebhookEvents, setWebhookSecret } from '../../domain/stripe/admin.js';
import type { CommissionRule } from '../../store/programs.js';
import { adminAuth } from '../auth.js';
import { id, programParams } from '../params.js';

/** A percentage (0–100, two decimals at most) or a flat amount in cents; not both. */
export const commissionInput = z
  .object({
    commissionPercent: z
      .number()
      .gt(0)
      .max(100)
      .refine((p) => Number.isInteger(Math.round(p * 100 * 1e6) / 1e6), 'at most two decimals')
      .optional(),
    commissionFlatCents: z.int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  })
  .refine((c) => c.commissionPercent === undefined || c.commissionFlatCents === undefined, {
    message: 'give commissionPercent or commissionFlatCents, not both',
    path: ['commissionFlatCents'],
  });

function ruleFrom(input: z.infer<typeof commissionInput>, fallbackPercent?: number): CommissionRule | undefined {
  if (input.commissionFlatCents !== undefined) return { type: 'flat', value: input.commissionFlatCents };
  const percent = input.commissionPercent ?? fallbackPercent;
  return percent === undefined ? undefined : { type: 'percent', value: percentToBasisPoints(percent) };
}

export const DEFAULT_COMMISSION_PERCENT = 20;

const createProgramBody = z.intersection(
  z.object({
    name: z.string().min(1).max(255),
    attributionWindowDays: z.int().min(1).max(3650).default(90),
    holdDays: z.int().min(0).max(3650).default(30),
    recurringMonths: z.int().min(0).max(1200).nullable().default(null),
  }),
  commissionInput,
);

const ruleBody = z.intersection(z.object({ productId: z.string().min(1).max(255) }), commissionInput).refine(
  (b) => b.commissionPercent !== undefined || b.commissionFlatCents !== undefined,
  { message: 'give commissionPercent or commissionFlatCents', path: ['commissionPercent'] },
);

/** The provisioning API behind the CLI; every route needs the instance admin token. */
export function adminRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', adminAuth(deps.adminTokenHash));
    const common = { tags: ['admin'], security: [{ adminToken: [] }] };

    // POST /api/admin/programs
    app.post('/programs', { schema: { ...common, summary: 'Create a program with its live and test keys', body: createProgramBody } }, (request) => {
      const { name, attributionWindowDays, holdDays, recurringMonths } = request.body;
      const commission = ruleFrom(request.body, DEFAULT_COMMISSION_PERCENT)!;
      return provisioning.createProgram(deps, { name, commission, attributionWindowDays, holdDays, recurringMonths });
    });

    // GET /api/admin/programs
    app.get('/programs', { schema: { ...common, summary: 'List programs' } }, () => provisioning.listPrograms(deps));

    // GET /api/admin/programs/:programId
    app.get('/programs/:programId', { schema: { ...common, summary: 'Show a program', params: programParams } }, (request) =>
      provisioning.showProgram(deps, request.params.programId),
    );

    // POST /api/admin/programs/:programId/rules
    app.post(
      '/programs/:programId/rules',
      { schema: { ...common, summary: 'Add or replace a per-product commission rule', params: programParams, body: ruleBody } },
      (request) => provisioning.addProductRule(deps, request.params.programId, request.body.productId, ruleFrom(request.body)!),
    );

    // POST /api/admin/programs/:programId/keys
    app.post(
      '/programs/:programId/keys',
      { schema: { ...common, summary: 'Create an API key', params: programParams, body: z.object({ test: z.boolean().default(false) }) } },
      (request) => provisioning.createApiKey(deps, request.params.programId, request.body.test ? 'test' : 'live'),
    );

    // GET /api/admin/programs/:programId/keys
    app.get('/programs/:programId/keys', { schema: { ...common, summary: 'List API keys (never the secrets)', params: programParams } }, (request) =>
      provisioning.listApiKeys(deps, request.params.programId),
    );

    // POST /api/admin/programs/:programId/keys/:keyId/retire
    app.post(
      '/programs/:programId/keys/:keyId/retire',
      { schema: { ...common, summary: 'Retire an API key', params: z.object({ programId: id, keyId: id }) } },
      (request) => provisioning.retireApiKey(deps, request.params.programId, request.params.keyId),
    );

    // POST /api/admin/partners
    app.post(
      '/partners',
      { schema: { ...common, summary: 'Create a partner', body: z.object({ name: z.string().min(1).max(255), email: z.email().max(255) }) } },
      (request) => provisioning.createPartner(deps, request.body),
    );

    // POST /api/admin/programs/:programId/partners
    app.post(
      '/programs/:programId/partners',
      { schema: { ...common, summary: 'Enroll a partner in a program', params: programParams, body: z.object({ partnerId: id }) } },
      (request) => provisioning.enrollPartner(deps, request.params.programId, request.body.partnerId),
    );

    const memberBody = z.object({ email: z.email().max(255) });

    // POST /api/admin/programs/:programId/members
    app.post(
      '/programs/:programId/members',
      { schema: { ...common, summary: 'Add (or reactivate) a workspace member', params: programParams, body: memberBody } },
      (request) => provisioning.setMembership(deps, request.params.programId, request.body.email, 'active'),
    );

    // POST /api/admin/programs/:programId/members/remove
    app.post(
      '/programs/:programId/members/remove',
      { schema: { ...common, summary: 'Deactivate a workspace member', params: programParams, body: memberBody } },
      (request) => provisioning.setMembership(deps, request.params.programId, request.body.email, 'inactive'),
    );

    // POST /api/admin/sessions
    app.post(
      '/sessions',
      {
        schema: {
          ...common,
          summary: 'Create a dashboard session token for a user',
          body: z.object({ email: z.email().max(255), ttlHours: z.number().gt(0).max(24 * 365).default(24) }),
        },
      },
      (request) => provisioning.createSession(deps, request.body.email, request.body.ttlHours),
    );

    // GET /api/admin/programs/:programId/webhook-events
    app.get(
      '/programs/:programId/webhook-events',
      {
        schema: {
          ...common,
          summary: 'List received webhook events with their outcome, newest first',
          params: programParams,
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
          ...common,
          summary: "Use the signing secret Stripe shows for this program's webhook endpoint",
          params: programParams,
          body: z.object({ secret: z.string().regex(/^whsec_[A-Za-z0-9_-]{8,250}$/, 'a Stripe signing secret, whsec_…') }),
        },
      },
      (request) => setWebhookSecret(deps, request.params.programId, request.body.secret),
    );
  };
}
