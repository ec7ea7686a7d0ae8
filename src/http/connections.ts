import type { ServerOptions } from 'node:http';
import type { FastifyServerOptions } from 'fastify';

/** How long a client may take (docs/tracking.md#connections-and-timeouts), in milliseconds. */
export type ConnectionTimeouts = {
  /** From the connection (or the end of the previous request) to the end of the request headers. */
  headersMs: number;
  /** From the same start to the end of the request body. */
  requestMs: number;
  /** An idle keep-alive connection between requests. */
  keepAliveMs: number;
};

export const DEFAULT_CONNECTION_TIMEOUTS: ConnectionTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 };

/**
 * Node's HTTP server options for the timeouts. Node checks the headers and request deadlines of
 * open connections on an interval (30 s unless told), so a deadline could be overrun by that much:
 * here it is checked every second, or every quarter of the headers timeout when that is shorter.
 * An expired request is answered 408 (src/http/errors.ts) and its connection closed.
 */
export function connectionOptions(
  timeouts: ConnectionTimeouts,
): Pick<FastifyServerOptions, 'requestTimeout' | 'keepAliveTimeout'> & { http: ServerOptions } {
  return {
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(timeouts.headersMs / 4))),
    },
  };
}
