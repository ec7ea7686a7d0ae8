import type { FastifyInstance } from 'fastify';
import { buildApp, DEFAULT_EDGE, DEFAULT_RATE_LIMIT, type AppDeps, type EdgeSettings } from './app.js';
import type { Clock } from './clock.js';
import { DataDirLockedError, ensureDataDir, runningServer, type DataDir } from './config.js';
import { sha256 } from './domain/secrets.js';
import { isNdjson, readNdjson, responseBody, type Transport } from './sdk/transport.js';
import { Store } from './store/db.js';

/** Opens the data dir's database; a clear error when another process holds it. */
export async function openStore(dir: DataDir): Promise<Store> {
  try {
    return await Store.open(dir.database);
  } catch (error) {
    if (/lock/i.test((error as Error).message)) {
      const server = runningServer(dir);
      throw new DataDirLockedError(
        server
          ? `The data dir ${dir.root} is held by a running partnerkit server at ${server.url} (pid ${server.pid}).`
          : `The data dir ${dir.root} is locked by another process: ${(error as Error).message}`,
      );
    }
    throw error;
  }
}

export type LocalApp = { app: FastifyInstance; deps: AppDeps; adminToken: string; close(): Promise<void> };

/** The app over a data dir in this process: what `serve` listens with and the CLI injects into. */
export async function openLocalApp(
  dir: DataDir,
  clock: Clock,
  options: {
    rateLimit?: AppDeps['rateLimit'];
    log?: AppDeps['log'];
    connections?: AppDeps['connections'];
    edge?: EdgeSettings;
    openApi?: AppDeps['openApi'];
    pages?: AppDeps['pages'];
  } = {},
): Promise<LocalApp> {
  const adminToken = ensureDataDir(dir);
  const store = await openStore(dir);
  const deps: AppDeps = {
    store,
    clock,
    adminTokenHash: sha256(adminToken),
    rateLimit: options.rateLimit ?? DEFAULT_RATE_LIMIT,
    log: options.log,
    connections: options.connections,
    openApi: options.openApi,
    pages: options.pages,
    ...(options.edge ?? DEFAULT_EDGE),
  };
  const app = await buildApp(deps);
  return {
    app,
    deps,
    adminToken,
    async close() {
      await app.close();
      await store.close();
    },
  };
}

/** The SDK's transport over an in-process app: same routes, validation and errors as HTTP. */
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
