import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { codeParams, codesQuerySchema, createCodeRequestSchema, programParams, promotionCodeSchema, responses } from '../../api/index.js';
import { addCode, listCodes, removeCode } from '../../domain/promotion-codes.js';
import type { AppDeps } from '../deps.js';
import { authenticateEvery, sessionAuth } from '../auth.js';

/** Promotion codes (docs/promotion-codes.md#api): a member's dashboard session or the admin token. */
export function promotionCodeRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const viewer = authenticateEvery(app, sessionAuth(deps));
    const common = { tags: ['promotion codes'], security: [{ sessionToken: [] as string[] }, { adminToken: [] as string[] }] as Array<Record<string, string[]>> };

    // POST /api/programs/:programId/codes
    app.post(
      '/api/programs/:programId/codes',
      {
        schema: {
          ...common, summary: "Add a promotion code for an enrolled partner (unique per program in any case)", params: programParams,
          body: createCodeRequestSchema, response: responses(promotionCodeSchema),
        },
      },
      (request) => addCode(deps, viewer(request), request.params.programId, request.body),
    );

    // GET /api/programs/:programId/codes
    app.get(
      '/api/programs/:programId/codes',
      {
        schema: {
          ...common, summary: "A program's promotion codes that are not removed, by code", params: programParams, querystring: codesQuerySchema,
          response: responses(z.array(promotionCodeSchema)),
        },
      },
      (request) => listCodes(deps, viewer(request), request.params.programId, request.query.partnerId),
    );

    // DELETE /api/programs/:programId/codes/:code
    app.delete(
      '/api/programs/:programId/codes/:code',
      { schema: { ...common, summary: 'Remove a promotion code: it attributes nothing new, and stays taken', params: codeParams, response: responses(promotionCodeSchema) } },
      (request) => removeCode(deps, viewer(request), request.params.programId, request.params.code),
    );
  };
}
