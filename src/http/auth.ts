import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { Deps } from '../domain/deps.js';
import { sameSecret, sha256 } from '../domain/secrets.js';
import type { Viewer } from '../domain/access.js';
import { cachedApiKey, readApiKey } from '../domain/api-keys.js';
import { sessionPartner, sessionUser } from '../domain/sessions.js';
import type { ApiKeyRow } from '../store/api-keys.js';
import type { FailedAuthentications } from './rate-limits.js';

export const KEY_ROTATION_DOCS_URL = 'https://github.com/partnerkit/partnerkit#api-keys';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ApiKeyRow | null;
  }
}

/** The bearer token of the Authorization header, or undefined when missing or malformed. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

/**
 * Authenticates every request of a plugin's routes in onRequest, which runs before validation, so a
 * missing credential is 401 even when the request is bad; answers the reader of each request's result.
 */
// Any server and type provider: the hook reads only the request.
// biome-ignore lint/suspicious/noExplicitAny: Fastify's generic parameters, whatever the app's.
export function authenticateEvery<T>(app: FastifyInstance<any, any, any, any, any>, authenticate: (request: FastifyRequest) => Promise<T>) {
  const results = new WeakMap<FastifyRequest, T>();
  app.addHook('onRequest', async (request) => {
    results.set(request, await authenticate(request));
  });
  return (request: FastifyRequest): T => results.get(request)!;
}

/** The bearer token, or 401 naming the credential the route takes. */
export function requiredBearer(request: FastifyRequest, credential: string): string {
  const token = bearerToken(request);
  if (!token) throw new AppError('unauthorized', `Missing or malformed Authorization header; send Authorization: Bearer <${credential}>`);
  return token;
}

/**
 * Program API key (docs/api.md#api-keys, docs/sales.md#order-of-checks): 401 unauthorized, or 401 api_key_rotation_required
 * for a retired key. A token is read from the store once, known or unknown (docs/architecture.md#caches);
 * unknown keys count against the client address's limit of failed authentications (docs/api.md#rate-limits).
 */
export function apiKeyAuth(deps: Deps, failures: FailedAuthentications) {
  return async (request: FastifyRequest): Promise<void> => {
    const token = requiredBearer(request, 'API key');
    const hash = sha256(token); // once per request: the caches and the store both know a key by it
    let key = cachedApiKey(deps.store, hash);
    if (key === undefined) {
      await failures.refuseExhausted(request);
      key = (await readApiKey(deps.store, hash)) ?? null;
    }
    if (key === null) {
      await failures.count(request);
      throw new AppError('unauthorized', 'The API key matches no active program');
    }
    if (key.status === 'retired') {
      throw new AppError('api_key_rotation_required', 'This API key has been retired', null, {
        hint: 'Create a new key with `partnerkit key create --program <id>` (or in the program settings) and replace the retired one in your backend.',
        docs_url: KEY_ROTATION_DOCS_URL,
      });
    }
    request.apiKey = key;
  };
}

/** The click endpoint: public, or the program API key when an Authorization header is sent (docs/tracking.md#post-apiv1trackclick). */
export function optionalApiKeyAuth(deps: Deps, failures: FailedAuthentications) {
  const authenticate = apiKeyAuth(deps, failures);
  return async (request: FastifyRequest): Promise<void> => {
    if (request.headers.authorization !== undefined) await authenticate(request);
  };
}

/** The instance admin token (docs/api.md#the-admin-token-and-the-admin-api): provisioning API and the CLI's reports. */
export function isAdminToken(adminTokenHash: string, token: string | undefined): boolean {
  return token !== undefined && sameSecret(sha256(token), adminTokenHash);
}

export function adminAuth(adminTokenHash: string) {
  return async (request: FastifyRequest): Promise<void> => {
    if (!isAdminToken(adminTokenHash, bearerToken(request))) {
      throw new AppError('unauthorized', 'The admin API needs the instance admin token (see <data-dir>/admin-token)');
    }
  };
}

/**
 * Dashboard session (docs/reports.md#credential) or the instance admin token; anything else, a program API
 * key and a partner session included, is 401. Membership of the program is checked later, after
 * validation and the 404.
 */
export function sessionAuth(deps: Deps & { adminTokenHash: string }) {
  return async (request: FastifyRequest): Promise<Viewer> => {
    const token = requiredBearer(request, 'session token');
    if (isAdminToken(deps.adminTokenHash, token)) return { kind: 'admin' };
    const userId = await sessionUser(deps, token);
    if (userId === undefined) {
      throw new AppError('unauthorized', 'No valid dashboard session: the token is unknown or expired (program API keys are not accepted here)');
    }
    return { kind: 'user', userId };
  };
}

/**
 * A partner session (docs/pages.md#who-may-call-the-portal-apis), the only credential of the portal routes: a dashboard
 * session and the admin token are 401 there. Answers the session's partner.
 */
export function partnerSessionAuth(deps: Deps) {
  return async (request: FastifyRequest): Promise<number> => {
    const partnerId = await sessionPartner(deps, requiredBearer(request, 'partner session token'));
    if (partnerId === undefined) {
      throw new AppError('unauthorized', 'No valid partner session: the token is unknown or expired (only partner sessions are accepted here)');
    }
    return partnerId;
  };
}
