import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { programParams, reconcileReportSchema, reconcileRequestSchema, responses } from '../../api/index.js';
import { reconcileStripe } from '../../domain/stripe/reconcile.js';
import type { AppDeps } from '../deps.js';
import { authenticateEvery, sessionAuth } from '../auth.js';
import { viewedProgram } from '../../domain/access.js';

/** Stripe reconciliation (docs/stripe-reconciliation.md#running-it): a member's dashboard session or the admin token. */
export function stripeReconcileRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const viewer = authenticateEvery(app, sessionAuth(deps));
    const common = { tags: ['stripe'], security: [{ sessionToken: [] as string[] }, { adminToken: [] as string[] }] as Array<Record<string, string[]>> };

    // POST /api/programs/:programId/stripe/reconcile
    app.post(
      '/api/programs/:programId/stripe/reconcile',
      {
        schema: {
          ...common,
          summary: "Record the program's Stripe events that were never delivered, read from Stripe's API (or count them: dryRun)",
          params: programParams, body: reconcileRequestSchema, response: responses(reconcileReportSchema),
        },
      },
      async (request) => {
        await deps.store.read((sql) => viewedProgram(deps.store, sql, viewer(request), request.params.programId));
        const { since, dryRun } = request.body;
        return reconcileStripe({ ...deps, stripeApi: deps.stripeApi ?? {} }, request.params.programId, { since: since === undefined ? undefined : new Date(since), dryRun });
      },
    );
  };
}
