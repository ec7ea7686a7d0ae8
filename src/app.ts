import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler, type FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { health, MAX_JSON_BYTES } from './api/index.js';
import { connectionOptions, DEFAULT_CONNECTION_TIMEOUTS } from './http/connections.js';
import type { AppDeps } from './http/deps.js';
import { frameworkErrorOptions, registerErrorHandling } from './http/errors.js';
import { cors, fastify, rateLimit, swagger } from './http/fastify.js';
import { loggerOptions } from './http/request-log.js';
import { refuseMalformedStrings } from './http/unicode.js';
import { fastifyTrustProxy } from './http/trust-proxy.js';
import type { Store } from './store/db.js';

/**
 * zod validates and serializes every route. Given as the schema controller's factories rather than
 * set on the app, Fastify never loads its default compilers (ajv, fast-json-stringify), which cost
 * a CLI command that opens the data dir about 60 ms (docs/architecture.md#command-start-up). Fastify types the
 * factories for ajv only, hence the cast.
 */
const zodCompilers = {
  buildValidator: () => validatorCompiler,
  buildSerializer: () => serializerCompiler,
} as unknown as NonNullable<FastifyServerOptions['schemaController']>['compilersFactory'];

/**
 * A file of routes (src/http/routes) and the paths they answer under: the paths let the CLI's
 * in-process app load and register only the module a request needs (docs/architecture.md#the-in-process-app).
 * A route outside its module's paths fails the app's build, so the table cannot drift.
 */
export type RouteModule = {
  name: string;
  /** Every route of the module starts with one of these (after its prefix). */
  paths: readonly string[];
  prefix?: string;
  /** Its routes have rate limits and answer browsers: the app registers the CORS and rate-limit plugins only with it. */
  publicEdge?: boolean;
  load(): Promise<(deps: AppDeps) => FastifyPluginAsyncZod>;
};

export const ROUTE_MODULES: readonly RouteModule[] = [
  { name: 'tracking', paths: ['/api/v1/track/', '/r/'], publicEdge: true, load: async () => (await import('./http/routes/tracking.js')).trackingRoutes },
  { name: 'script', paths: ['/pk.js'], load: async () => (await import('./http/routes/script.js')).scriptRoutes },
  { name: 'reports', paths: ['/api/tracking/'], load: async () => (await import('./http/routes/reports.js')).reportRoutes },
  {
    name: 'payouts',
    paths: ['/api/programs/', '/api/payouts/', '/api/payout-batches/'],
    load: async () => (await import('./http/routes/payouts.js')).payoutRoutes,
  },
  {
    name: 'outbound-webhooks',
    paths: ['/api/programs/', '/api/webhook-endpoints/', '/api/webhook-events/'],
    load: async () => (await import('./http/routes/outbound-webhooks.js')).outboundWebhookRoutes,
  },
  {
    name: 'stripe-reconcile',
    paths: ['/api/programs/'],
    load: async () => (await import('./http/routes/stripe-reconcile.js')).stripeReconcileRoutes,
  },
  { name: 'fraud', paths: ['/api/programs/'], load: async () => (await import('./http/routes/fraud.js')).fraudRoutes },
  {
    name: 'promotion-codes',
    paths: ['/api/programs/'],
    load: async () => (await import('./http/routes/promotion-codes.js')).promotionCodeRoutes,
  },
  { name: 'groups', paths: ['/api/programs/'], load: async () => (await import('./http/routes/groups.js')).groupRoutes },
  {
    name: 'public-applications',
    paths: ['/api/public/programs/'],
    publicEdge: true,
    load: async () => (await import('./http/routes/applications.js')).publicApplicationRoutes,
  },
  {
    name: 'applications',
    paths: ['/api/programs/', '/api/applications/'],
    load: async () => (await import('./http/routes/applications.js')).applicationRoutes,
  },
  { name: 'mail', paths: ['/mail/'], load: async () => (await import('./http/routes/mail.js')).mailRoutes },
  { name: 'workspace', paths: ['/api/programs/'], load: async () => (await import('./http/routes/workspace.js')).workspaceRoutes },
  { name: 'exports', paths: ['/api/programs/'], load: async () => (await import('./http/routes/exports.js')).exportRoutes },
  { name: 'sessions', paths: ['/api/me', '/api/session'], publicEdge: true, load: async () => (await import('./http/routes/sessions.js')).sessionRoutes },
  { name: 'portal', paths: ['/api/portal/'], load: async () => (await import('./http/routes/portal.js')).portalRoutes },
  { name: 'admin', paths: ['/api/admin/'], prefix: '/api/admin', load: async () => (await import('./http/routes/admin.js')).adminRoutes },
  { name: 'demo', paths: ['/api/admin/demo'], prefix: '/api/admin', load: async () => (await import('./http/routes/demo.js')).demoRoutes },
  { name: 'webhooks', paths: ['/api/v1/webhooks/'], load: async () => (await import('./http/routes/webhooks.js')).webhookRoutes },
];

/** The modules with a route that may answer `path` (a request's path, with or without its query). */
export function routeModulesFor(path: string): RouteModule[] {
  const pathname = path.split('?')[0];
  return ROUTE_MODULES.filter((m) => m.paths.some((p) => pathname.startsWith(p)));
}

/**
 * Where the rate limits count: in this process's memory, or, on a database other instances share,
 * in the database (docs/store-engines.md#rate-limits-across-instances).
 */
async function rateLimitStore(store: Store) {
  if (!store.shared) return undefined;
  const { SharedCounters, sharedRateLimitStore } = await import('./http/shared-rate-limits.js');
  return sharedRateLimitStore(new SharedCounters(store));
}

/**
 * The HTTP app, not listening: `serve` listens, tests and the local CLI use inject(). With `routes`,
 * only those modules are registered: the CLI's in-process app (docs/architecture.md#the-in-process-app).
 */
export async function buildApp(deps: AppDeps, routes: readonly RouteModule[] = ROUTE_MODULES): Promise<FastifyInstance> {
  const app = fastify({
    bodyLimit: MAX_JSON_BYTES,
    ...loggerOptions(deps.log),
    ...connectionOptions(deps.connections ?? DEFAULT_CONNECTION_TIMEOUTS),
    ...frameworkErrorOptions,
    trustProxy: fastifyTrustProxy(deps.trustProxy),
    schemaController: { compilersFactory: zodCompilers },
  });
  app.decorateRequest('apiKey', null);
  registerErrorHandling(app);
  app.addHook('preValidation', refuseMalformedStrings);

  const openApi = deps.openApi ?? true;
  if (openApi) await app.register(swagger(), {
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
  if (routes.some((m) => m.publicEdge)) {
    // Only the click endpoint is called from browsers; every other route sends no CORS headers.
    await app.register(cors(), {
      delegator: (request, callback) => callback(null, { origin: request.url?.startsWith('/api/v1/track/click') ?? false }),
    });
    await app.register(rateLimit(), { global: false, store: await rateLimitStore(deps.store) });
  }
  // API answers hold a session's data: no browser or proxy keeps them (docs/pages.md#serving-caching-and-the-session).
  app.addHook('onSend', async (request, reply) => {
    if (request.url.startsWith('/api/') && !reply.hasHeader('cache-control')) void reply.header('cache-control', 'no-store');
  });

  app.get('/healthz', { schema: { hide: true, response: { 200: health } } }, async () => ({ status: 'ok' as const, now: deps.clock.now().toISOString() }));
  if (openApi) app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  const plugins = await Promise.all(routes.map((m) => m.load()));
  for (const [i, module] of routes.entries()) {
    await app.register(async (scope) => {
      scope.addHook('onRoute', ({ url }) => {
        if (!module.paths.some((p) => url.startsWith(p))) throw new Error(`route ${url} is outside the paths of route module ${module.name}`);
      });
      await scope.register(plugins[i](deps), { prefix: module.prefix });
    });
  }
  // The web pages, for `serve` only: their files are read from the build (docs/architecture.md#the-pages).
  if (deps.pages) await app.register((await import('./http/routes/pages.js')).pageRoutes(deps.pages));
  return app;
}
