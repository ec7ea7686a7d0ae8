import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { demoRequestSchema, demoResultSchema, demoStreamLineSchema, NDJSON, responses, type DemoStreamLine } from '../../api/index.js';
import type { AppDeps } from '../deps.js';
import { loadDemo } from '../../domain/demo.js';
import { errorBody } from '../../errors.js';
import { adminAuth } from '../auth.js';
import { requestError } from '../errors.js';

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
          description: `With \`Accept: ${NDJSON}\` the answer streams one JSON line per step of the load ({progress}), then {result} or the error envelope.`,
          body: demoRequestSchema,
          response: {
            ...responses(demoResultSchema),
            200: { content: { 'application/json': { schema: demoResultSchema }, [NDJSON]: { schema: demoStreamLineSchema } } },
          },
        },
      },
      async (request, reply) => {
        if (!request.headers.accept?.includes(NDJSON)) return loadDemo(deps, request.body);
        // Streamed (docs/api.md#demo-data): the status is sent before the load runs, so its outcome is the last line.
        const lines = new PassThrough();
        const send = (line: DemoStreamLine) => lines.write(`${JSON.stringify(line)}\n`);
        void loadDemo(deps, request.body, (progress) => send({ progress }))
          .then(
            (result) => send({ result }),
            (error: unknown) => send(errorBody(requestError(error, request)) as DemoStreamLine),
          )
          .finally(() => lines.end());
        // A stream is sent as it is, never serialized: the NDJSON schema above documents its lines.
        return reply.type(NDJSON).send(lines as never);
      },
    );
  };
}
