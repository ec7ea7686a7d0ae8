import type { RateLimitOptions } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { rateLimited } from '../errors.js';
import { rateLimit } from './fastify.js';

/** At most `max` requests per window of `windowSeconds`, in real time: counted in the server's memory, or in a database other instances share (docs/store-engines.md#rate-limits-across-instances). */
export type RateLimit = { max: number; windowSeconds: number };

/**
 * The tracking routes' limit (docs/api.md#rate-limits), run after authentication: per API key when
 * the request carries one, else per client address (the click endpoint from browsers).
 */
export function trackingRateLimit(limits: { perKey: RateLimit; perAddress: RateLimit }) {
  const limitOf = (request: FastifyRequest) => (request.apiKey ? limits.perKey : limits.perAddress);
  const { normalizeIP } = rateLimit();
  return {
    max: (request: FastifyRequest) => limitOf(request).max,
    timeWindow: (request: FastifyRequest) => limitOf(request).windowSeconds * 1000,
    keyGenerator: (request: FastifyRequest) => (request.apiKey ? `key:${request.apiKey.id}` : `ip:${normalizeIP(request.ip)}`),
    errorResponseBuilder: (request: FastifyRequest, context: { ttl: number }) =>
      rateLimited(request.apiKey ? 'Too many requests for this API key' : 'Too many requests from this address', context.ttl),
  };
}

/**
 * Every 429 closes its connection: a client over a limit reconnects for each request, so a flood
 * cannot keep hundreds of refused requests queued beside everyone else's (docs/architecture.md#cross-cutting-rules).
 */
export function closeConnectionsOverLimit(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply) => {
    if (reply.statusCode === 429) void reply.header('connection', 'close');
  });
}

/** Counts the requests of each client address that sent an unknown API key (docs/api.md#rate-limits). */
export type FailedAuthentications = {
  /** Refuses an address that has used up its failures: its next unknown key is not even looked up. */
  refuseExhausted(request: FastifyRequest): Promise<void>;
  /** Counts one failure; the one over the limit is refused with 429 instead of 401. */
  count(request: FastifyRequest): Promise<void>;
};

export function failedAuthentications(app: FastifyInstance, limit: RateLimit): FailedAuthentications {
  // groupId names the counter on a shared store; createRateLimit's types leave it out, the plugin takes it.
  const options: RateLimitOptions = { max: limit.max, timeWindow: limit.windowSeconds * 1000, groupId: 'failed-authentications' };
  const counter = app.createRateLimit(options);
  const refusal = (ttl: number) => rateLimited('Too many requests with an unknown API key from this address', ttl);
  return {
    async refuseExhausted(request) {
      const state = await counter(request, { increment: false });
      if (!state.isAllowed && state.remaining === 0) throw refusal(state.ttl);
    },
    async count(request) {
      const state = await counter(request);
      if (!state.isAllowed && state.isExceeded) throw refusal(state.ttl);
    },
  };
}
