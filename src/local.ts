import type { FastifyInstance } from 'fastify';
import type { RouteModule } from './app.js';
import type { Clock } from './clock.js';
import { DataDirError, ensureDataDir, redactedUrl, runningServer, stripeApiBase, type DataDir } from './config.js';
import { claimAdminToken } from './domain/admin-token.js';
import { sha256 } from './domain/secrets.js';
import { DEFAULT_EDGE, DEFAULT_RATE_LIMIT, type AppDeps, type EdgeSettings } from './http/deps.js';
import { isNdjson, readNdjson, responseBody, type Transport } from './sdk/transport.js';
import type { Store } from './store/db.js';
import { openStore } from './store/open.js';

/**
 * Opens the data dir's database, or the PostgreSQL one it names (which then must hold this data
 * dir's admin token: docs/store-engines.md#several-instances-on-postgresql); a clear error when another process holds a DuckDB
 * file or PostgreSQL cannot be reached.
 */
export async function openDataDirStore(dir: DataDir, adminTokenHash: string): Promise<Store> {
  if (dir.databaseUrl) return openPostgres(dir.databaseUrl, adminTokenHash);
  try {
    return await openStore({ duckdb: dir.database });
  } catch (error) {
    if (/lock/i.test((error as Error).message)) {
      const server = runningServer(dir);
      throw new DataDirError(
        'data_dir_locked',
        server
          ? `The data dir ${dir.root} is held by a running partnerkit server at ${server.url} (pid ${server.pid}).`
          : `The data dir ${dir.root} is locked by another process${heldBy((error as Error).message)}: only one process at a time can open its database`,
      );
    }
    throw error;
  }
}

/** ` (pid N)` from DuckDB's lock error, which names the process holding the file. */
const heldBy = (message: string) => {
  const pid = /PID (\d+)/.exec(message)?.[1];
  return pid ? ` (pid ${pid})` : '';
};

async function openPostgres(url: string, adminTokenHash: string): Promise<Store> {
  let store: Store;
  try {
    store = await openStore({ postgres: url });
  } catch (error) {
    if (!isConnectionError(error)) throw error;
    throw new DataDirError('database_unreachable', `Cannot reach the PostgreSQL database at ${redactedUrl(url)}: ${(error as Error).message}`);
  }
  try {
    if (!(await claimAdminToken(store, adminTokenHash))) {
      throw new DataDirError(
        'admin_token_mismatch',
        `The PostgreSQL database at ${redactedUrl(url)} belongs to another admin token: copy the admin-token file of the data dir that first opened it into this one, or use that data dir.`,
      );
    }
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** A failure to connect at all, as opposed to an error the database answered with. */
const isConnectionError = (error: unknown) => (error as { code?: string }).code?.startsWith('E') === true || /connect|timeout|getaddrinfo/i.test((error as Error).message);

type LocalOptions = {
  rateLimit?: AppDeps['rateLimit'];
  log?: AppDeps['log'];
  connections?: AppDeps['connections'];
  edge?: EdgeSettings;
  openApi?: AppDeps['openApi'];
  pages?: AppDeps['pages'];
};

export type LocalDeps = { deps: AppDeps; adminToken: string };

/**
 * The app's dependencies over a data dir: its store (opened here; the caller closes it), the clock,
 * the admin token. DuckDB opens the file in its own threads while this one loads the app's modules
 * (Fastify, zod, the schemas), which app.js is imported for here (docs/architecture.md#the-in-process-app).
 */
export async function openLocalDeps(dir: DataDir, clock: Clock, options: LocalOptions = {}): Promise<LocalDeps> {
  const adminToken = ensureDataDir(dir);
  const adminTokenHash = sha256(adminToken);
  const [store] = await Promise.all([openDataDirStore(dir, adminTokenHash), import('./app.js')]);
  const deps: AppDeps = {
    store,
    clock,
    adminTokenHash,
    rateLimit: options.rateLimit ?? DEFAULT_RATE_LIMIT,
    log: options.log,
    connections: options.connections,
    openApi: options.openApi,
    pages: options.pages,
    exports: { dir: dir.exportsDir },
    stripeApi: { base: stripeApiBase() },
    ...(options.edge ?? DEFAULT_EDGE),
  };
  return { deps, adminToken };
}

export type LocalApp = LocalDeps & { app: FastifyInstance; close(): Promise<void> };

/** The whole app over a data dir in this process: what `serve` listens with. */
export async function openLocalApp(dir: DataDir, clock: Clock, options: LocalOptions = {}): Promise<LocalApp> {
  const local = await openLocalDeps(dir, clock, options);
  const { buildApp } = await import('./app.js');
  const app = await buildApp(local.deps);
  return {
    ...local,
    app,
    async close() {
      await app.close();
      await local.deps.store.close();
    },
  };
}

export type InProcessApp = LocalDeps & { transport: Transport; close(): Promise<void> };

/**
 * The app a CLI command injects into when no server holds the data dir: built on the first request
 * with only the route modules that request's path needs, and built again with one more module when
 * a later request needs it (docs/architecture.md#the-in-process-app). The routes, validation and errors are the
 * same as the whole app's; no OpenAPI document.
 */
export async function openInProcessApp(dir: DataDir, clock: Clock): Promise<InProcessApp> {
  const local = await openLocalDeps(dir, clock, { openApi: false });
  const { buildApp, ROUTE_MODULES, routeModulesFor } = await import('./app.js');
  const builds: Array<Promise<FastifyInstance>> = [];
  let modules: RouteModule[] = [];
  const appFor = (path: string): Promise<FastifyInstance> => {
    const missing = routeModulesFor(path).filter((m) => !modules.includes(m));
    if (builds.length > 0 && missing.length === 0) return builds.at(-1)!;
    modules = ROUTE_MODULES.filter((m) => modules.includes(m) || missing.includes(m));
    builds.push(buildApp(local.deps, modules));
    return builds.at(-1)!;
  };
  return {
    ...local,
    transport: async (request) => injectTransport(await appFor(request.path))(request),
    async close() {
      for (const build of await Promise.allSettled(builds)) if (build.status === 'fulfilled') await build.value.close();
      await local.deps.store.close();
    },
  };
}

/** The SDK's transport over an app in this process: same routes, validation and errors as HTTP. */
export function injectTransport(app: FastifyInstance): Transport {
  return async ({ method, path, headers, body, onLine, sink }) => {
    const response = await app.inject({ method, url: path, headers, payload: body as string | object | undefined });
    if (sink && response.statusCode < 400) {
      await sink([response.rawPayload], response.headers);
      return { status: response.statusCode, headers: response.headers, body: null };
    }
    if (onLine && isNdjson(response.headers['content-type'])) {
      return { status: response.statusCode, headers: response.headers, body: await readNdjson([response.rawPayload], onLine) };
    }
    return { status: response.statusCode, headers: response.headers, body: responseBody(response.body, response.headers['content-type']) };
  };
}
