import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { demoRequestSchema, demoResultSchema, responses } from '../../api/index.js';
import type { AppDeps } from '../../app.js';
import { loadDemo } from '../../domain/demo.js';
import { adminAuth } from '../auth.js';

/** The demo loader inside a running server, which alone can open the data dir. */
export function demoRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    app.addHook('onRequest', adminAuth(deps.adminTokenHash));

    // POST /api/admin/demo
    app.post(
      '/demo',
      {
        schema: {
          tags: ['admin'],
          security: [{ adminToken: [] }],
          summary: 'Create a demo program with a generated history',
          body: demoRequestSchema,
          response: responses(demoResultSchema),
        },
      },
      (request) => loadDemo(deps, request.body),
    );
  };
}
