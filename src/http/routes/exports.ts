import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  dataExportFileName, dataExportQuerySchema, dataFileSchema, programParams, responses, EXPORT_ROWS_HEADER, type DataFormat,
} from '../../api/index.js';
import type { AppDeps } from '../deps.js';
import { DEFAULT_EXPORT_LIMITS, RunningExports } from '../../domain/exports.js';
import { authenticateEvery, sessionAuth } from '../auth.js';
import { closeConnectionsOverLimit } from '../rate-limits.js';

const MEDIA_TYPES: Record<DataFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  json: 'application/json; charset=utf-8',
  parquet: 'application/vnd.apache.parquet',
};

/**
 * A program's data as a file (docs/exports.md#what-an-export-holds): a member's dashboard session or the admin
 * token. The app's running exports are limited, and closed with it (docs/exports.md).
 */
export function exportRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    const viewer = authenticateEvery(app, sessionAuth(deps));
    // Without a data dir (tests, an app built by hand) the files go to the system's temporary directory.
    const exports = new RunningExports({ dir: join(tmpdir(), 'partnerkit-exports'), ...DEFAULT_EXPORT_LIMITS, ...deps.exports });
    app.addHook('onClose', () => exports.close());
    closeConnectionsOverLimit(app);

    // GET /api/programs/:programId/export
    app.get(
      '/api/programs/:programId/export',
      {
        schema: {
          tags: ['exports'],
          summary: "One table of a program's data (clicks, customers, sales, commissions, refunds or payouts) as CSV, JSON or Parquet",
          security: [{ sessionToken: [] }, { adminToken: [] }] as Array<Record<string, string[]>>,
          params: programParams,
          querystring: dataExportQuerySchema,
          response: {
            ...responses(dataFileSchema),
            200: { content: Object.fromEntries(Object.values(MEDIA_TYPES).map((type) => [type.split(';')[0], { schema: dataFileSchema }])) },
          },
        },
      },
      async (request, reply) => {
        const { programId } = request.params;
        const { table, format } = request.query;
        const file = await exports.file(deps, viewer(request), programId, request.query);
        return reply
          .header(EXPORT_ROWS_HEADER, file.rows)
          .header('content-length', file.bytes)
          .header('content-disposition', `attachment; filename="${dataExportFileName(programId, table, format)}"`)
          .type(MEDIA_TYPES[format])
          // The file is streamed as it is, never serialized: the schema above only documents it.
          .send(file.stream as never);
      },
    );
  };
}
