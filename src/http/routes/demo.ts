import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppDeps } from '../../app.js';
import { DEMO_DEFAULTS, loadDemo } from '../../domain/demo.js';
import { adminAuth } from '../auth.js';

export const demoBody = z.object({
  days: z.int().min(1).max(3650).default(DEMO_DEFAULTS.days),
  clicks: z.int().min(0).max(100_000_000).default(DEMO_DEFAULTS.clicks),
  seed: z.int().min(0).max(2 ** 32 - 1).default(DEMO_DEFAULTS.seed),
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
