import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Clock } from './clock.js';
import { health, MAX_JSON_BYTES } from './api/index.js';
import { connectionOptions, DEFAULT_CONNECTION_TIMEOUTS, type ConnectionTimeouts } from './http/connections.js';
import { frameworkErrorOptions, registerErrorHandling } from './http/errors.js';
import { cors, fastify, rateLimit, swagger } from './http/fastify.js';
import { loggerOptions, type RequestLog } from './http/request-log.js';
import { refuseMalformedStrings } from './http/unicode.js';
import { adminRoutes } from './http/routes/admin.js';
import { demoRoutes } from './http/routes/demo.js';
import { exportRoutes } from './http/routes/exports.js';
import { pageRoutes } from './http/routes/pages.js';
import { payoutRoutes } from './http/routes/payouts.js';
import { portalRoutes } from './http/routes/portal.js';
import { reportRoutes } from './http/routes/reports.js';
import { scriptRoutes } from './http/routes/script.js';
import { sessionRoutes } from './http/routes/sessions.js';
import { trackingRoutes } from './http/routes/tracking.js';
import type { RateLimit } from './http/rate-limits.js';
import { webhookRoutes } from './http/routes/webhooks.js';
import type { Store } from './store/db.js';

export type AppDeps = {
  store: Store;
  clock: Clock;
  /** SHA-256 of the instance admin token. */
  adminTokenHash: string;
  /** Requests per window per API key on the tracking API (docs/behaviour.md §8: default 100 per second). */
  rateLimit: RateLimit;
  /** serve's request log (docs/behaviour.md §11.2); without one nothing is logged. */
  log?: RequestLog;
  /** How long clients may take (docs/behaviour.md §11.1); the defaults when absent. */
  connections?: ConnectionTimeouts;
  // Abuse of the public edge (docs/behaviour.md §3.4, §8):
  /** Unique clicks (0 minutes: off) and the click endpoint's limit per client address. */
  clicks: { dedupMinutes: number; rateLimit: RateLimit };
  /** Requests with an unknown API key per window per client address. */
  authFailureLimit: RateLimit;
  /** The client address is taken from X-Forwarded-For (behind a proxy), else from the socket. */
  trustProxy: boolean;
  /**
   * Serve the OpenAPI document at /openapi.json (default true). The CLI's in-process app, which no
   * command asks for it, leaves it out: its plugin loads a YAML library, ~80 ms of every command
   * that opens the data dir (docs/architecture.md §15).
   */
  openApi?: boolean;
  /**
   * The directory of the built pages (dist/web): `serve` delivers /dashboard, /portal and their
   * assets from it (docs/behaviour.md §16.1). The CLI's in-process app has no use for them.
   */
  pages?: string;
};

export const DEFAULT_RATE_LIMIT: RateLimit = { max: 100, windowSeconds: 1 };

export type EdgeSettings = Pick<AppDeps, 'clicks' | 'authFailureLimit' | 'trustProxy'>;

/** The public edge's defaults: unique clicks per hour, 60 clicks a minute and 30 unknown keys a minute per address, no proxy. */
export const DEFAULT_EDGE: EdgeSettings = {
  clicks: { dedupMinutes: 60, rateLimit: { max: 60, windowSeconds: 60 } },
  authFailureLimit: { max: 30, windowSeconds: 60 },
  trustProxy: false,
};

/**
 * zod validates and serializes every route. Given as the schema controller's factories rather than
 * set on the app, Fastify never loads its default compilers (ajv, fast-json-stringify), which cost
 * a CLI command that opens the data dir about 60 ms (docs/architecture.md §15). Fastify types the
 * factories for ajv only, hence the cast.
 */
const zodCompilers = {
  buildValidator: () => validatorCompiler,
  buildSerializer: () => serializerCompiler,
} as unknown as NonNullable<FastifyServerOptions['schemaController']>['compilersFactory'];

/** The HTTP app, not listening: `serve` listens, tests and the local CLI use inject(). */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = fastify({
    bodyLimit: MAX_JSON_BYTES,
    ...loggerOptions(deps.log),
    ...connectionOptions(deps.connections ?? DEFAULT_CONNECTION_TIMEOUTS),
    ...frameworkErrorOptions,
    // One hop: the address the nearest proxy appended; whatever the client put before it is its own claim.
    trustProxy: deps.trustProxy ? (_address: string, hop: number) => hop === 0 : false,
    schemaController: { compilersFactory: zodCompilers },
  });
  app.decorateRequest('apiKey', null);
  registerErrorHandling(app);
  app.addHook('preValidation', refuseMalformedStrings);

  const openApi = deps.openApi ?? true;
  if (openApi) await app.register(swagger, {
    openapi: {
      info: { title: 'partnerkit', version: '1.0.0', description: 'Partner program tracking: clicks, leads, sales, commissions and reports.' },
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'Program API key (pk_live_… or pk_test_…)' },
          adminToken: { type: 'http', scheme: 'bearer', description: 'Instance admin token' },
          sessionToken: { type: 'http', scheme: 'bearer', description: 'Dashboard session token' },
          partnerSessionToken: { type: 'http', scheme: 'bearer', description: 'Partner portal session token' },
        },
      },
    },
    transform: jsonSchemaTransform,
  });
  // Only the click endpoint is called from browsers; every other route sends no CORS headers.
  await app.register(cors, {
    delegator: (request, callback) => callback(null, { origin: request.url?.startsWith('/api/v1/track/click') ?? false }),
  });
  await app.register(rateLimit, { global: false });
  // API answers hold a session's data: no browser or proxy keeps them (docs/behaviour.md §16.1).
  app.addHook('onSend', async (request, reply) => {
    if (request.url.startsWith('/api/') && !reply.hasHeader('cache-control')) void reply.header('cache-control', 'no-store');
  });

  app.get('/healthz', { schema: { hide: true, response: { 200: health } } }, async () => ({ status: 'ok' as const, now: deps.clock.now().toISOString() }));
  if (openApi) app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(trackingRoutes(deps));
  await app.register(scriptRoutes(deps));
  await app.register(reportRoutes(deps));
  await app.register(payoutRoutes(deps));
  await app.register(exportRoutes(deps));
  await app.register(sessionRoutes(deps));
  await app.register(portalRoutes(deps));
  await app.register(adminRoutes(deps), { prefix: '/api/admin' });
  await app.register(demoRoutes(deps), { prefix: '/api/admin' });
  await app.register(webhookRoutes(deps));
  if (deps.pages) await app.register(pageRoutes(deps.pages));
  return app;
}
