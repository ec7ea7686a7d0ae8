import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app.js';
import { DEMO_DEFAULTS, DEMO_LIMITS, loadDemo } from '../../domain/demo.js';
import { adminAuth } from '../auth.js';

export const demoBody = z.object({
  days: z.int().min(DEMO_LIMITS.days.min).max(DEMO_LIMITS.days.max).default(DEMO_DEFAULTS.days),
  clicks: z.int().min(DEMO_LIMITS.clicks.min).max(DEMO_LIMITS.clicks.max).default(DEMO_DEFAULTS.clicks),
  seed: z.int().min(DEMO_LIMITS.seed.min).max(DEMO_LIMITS.seed.max).default(DEMO_DEFAULTS.seed),
});

/** The demo loader inside a running server, which alone can open the data dir (DUCKDB.md). */
export function demoRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', adminAuth(deps.adminTokenHash));

    // POST /api/admin/demo
    app.post(
      '/demo',
      { schema: { tags: ['admin'], security: [{ adminToken: [] }], summary: 'Create a demo program with a generated history', body: demoBody } },
      (request) => loadDemo(deps, request.body),
    );
  };
}
