import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { trackingScriptQuerySchema } from '../../api/index.js';
import type { AppDeps } from '../deps.js';
import { programTrackingScript } from '../../domain/links.js';

/** Whether an If-None-Match header names this ETag (a list, weak validators and `*` included). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}

/** The tracking script merchants load on their pages (docs/tracking.md#the-tracking-script-get-pkjsprogramprogramid). */
export function scriptRoutes(deps: AppDeps): FastifyPluginAsyncZod {
  return async (app) => {
    // GET /pk.js?program=ID: public and cacheable; the same program's script keeps its ETag until its window changes.
    app.get('/pk.js', { schema: { hide: true, querystring: trackingScriptQuerySchema } }, async (request, reply) => {
      const script = await programTrackingScript(deps, request.query.program);
      void reply.header('cache-control', 'public, max-age=300').header('etag', script.etag).header('x-content-type-options', 'nosniff');
      if (matches(request.headers['if-none-match'], script.etag)) return reply.code(304).send();
      return reply.type('text/javascript; charset=utf-8').send(script.body);
    });
  };
}
