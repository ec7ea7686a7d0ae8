import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * Fastify and the plugins partnerkit registers, loaded with require(). They are CommonJS, and an
 * ESM import of a CommonJS package makes Node read and lex its source once more for its export
 * names: about 60 ms for these four in every CLI command that opens the data dir
 * (docs/architecture.md#the-in-process-app, as for DuckDB in src/store/duckdb.ts). Types come from `import type`.
 */
export const fastify = require('fastify') as typeof import('fastify').default;
// The plugins are loaded by the app that registers them: the CLI's in-process app leaves out the
// OpenAPI document, and CORS and rate limits unless the request is one of the tracking routes
// (docs/architecture.md#the-in-process-app).
export const cors = () => require('@fastify/cors') as typeof import('@fastify/cors').default;
export const rateLimit = () => require('@fastify/rate-limit') as typeof import('@fastify/rate-limit').default & typeof import('@fastify/rate-limit');
export const swagger = () => require('@fastify/swagger') as typeof import('@fastify/swagger').default;
