import type { FastifyReply, FastifyRequest, FastifyServerOptions, LogLevel } from 'fastify';
import { fastify } from './fastify.js';

/** `serve`'s log (docs/tracking.md#request-log): pino's JSON lines, to stdout unless a stream is given. */
export type RequestLog = { level: LogLevel; stream?: { write(line: string): void } };

export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const BELOW_INFO = new Set<string>(['fatal', 'error', 'warn', 'silent']);

/**
 * One line per request, whatever answered it: a route, the not-found handler, or the router's own
 * errors (a bad URL), which skip the route hooks but are announced here like every request.
 * Fastify's own incoming and completed lines are dropped. Nothing from headers or the body is
 * logged, so no API key, token, signature or request body can appear.
 */
class OneLinePerRequest extends fastify.LogController {
  override incomingRequest(request: FastifyRequest, reply: FastifyReply): void {
    if (BELOW_INFO.has(request.log.level)) return; // no request line will be written: spend nothing on it
    const started = performance.now();
    reply.raw.once('close', () => {
      request.log.info(
        {
          method: request.method,
          route: request.routeOptions.url ?? null,
          // null: the connection closed before an answer was written (timed out, or the client left).
          status: reply.raw.writableFinished ? reply.raw.statusCode : null,
          durationMs: Math.round((performance.now() - started) * 10) / 10,
        },
        'request',
      );
    });
  }

  override requestCompleted(): void {}

  override routeNotFound(): void {}
}

type LogLine = {
  time: number;
  level: string;
  msg: string;
  requestId?: string;
  method?: string;
  route?: string | null;
  status?: number | null;
  durationMs?: number;
  code?: string;
  err?: { message?: string; stack?: string };
};

/**
 * On a terminal, each JSON line as one line of text with the same fields (docs/tracking.md#request-log):
 * `12:00:01.234 INFO  req-1 POST /api/v1/track/sale 200 3.2 ms`. Pipes and files keep the JSON.
 */
export function readableLines(out: { write(text: string): void }): { write(line: string): void } {
  return {
    write(line) {
      const entry = JSON.parse(line) as LogLine;
      const fields =
        entry.msg === 'request'
          ? [entry.requestId, entry.method, entry.route ?? '-', entry.status ?? '-', `${entry.durationMs} ms`]
          : [entry.requestId, entry.msg, entry.status, entry.code, entry.err?.stack ?? entry.err?.message];
      const text = fields.filter((field) => field !== undefined && field !== null).join(' ');
      out.write(`${new Date(entry.time).toISOString().slice(11, 23)} ${entry.level.toUpperCase().padEnd(5)} ${text}\n`);
    },
  };
}

/** Fastify's logger options for a request log; none at all without one (tests, the in-process CLI). */
export function loggerOptions(log: RequestLog | undefined): Pick<FastifyServerOptions, 'logger' | 'logController'> {
  if (!log) return { logger: false };
  return {
    logger: { level: log.level, stream: log.stream, formatters: { level: (label) => ({ level: label }) } },
    logController: new OneLinePerRequest({ requestIdLogLabel: 'requestId' }),
  };
}
