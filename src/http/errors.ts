import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { AppError, errorBody, invalidRequest } from '../errors.js';

/** The one place errors become responses: AppError as is, framework errors mapped, the rest hidden. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (hasZodFastifySchemaValidationErrors(error)) {
    return invalidRequest(
      error.validation.map((issue) => ({
        field: issue.instancePath.replace(/^\//, '').replace(/\//g, '.') || error.validationContext || 'body',
        message: issue.message ?? 'Invalid value',
      })),
    );
  }
  const { code, message, statusCode } = error as Partial<FastifyError>;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new AppError('payload_too_large', 'The request body is larger than this endpoint accepts');
  }
  if (code?.startsWith('FST_ERR_CTP_')) return invalidRequest([{ field: 'body', message: message! }]);
  if (statusCode === 400 && error instanceof SyntaxError) {
    return invalidRequest([{ field: 'body', message: 'Body is not valid JSON' }]);
  }
  // The connection closed while the body was read (a request timeout, or the client gave up): the
  // client's doing, and nobody is left to answer.
  if (code === 'ECONNRESET') return invalidRequest([{ field: 'body', message: 'the connection closed before the body arrived' }]);
  // Raised by the router before any route runs: bad percent-encoding, a path segment over 100 characters.
  if (code === 'FST_ERR_BAD_URL' || code === 'FST_ERR_MAX_PARAM_LENGTH') return invalidRequest([{ field: 'url', message: message! }]);
  // Raised by @fastify/static for the pages' assets (docs/operations.md#the-pages-root): a Range
  // outside the file, and a path it refuses to read (as if the file were not there).
  if (statusCode === 416) return new AppError('range_not_satisfiable', 'The Range header asks for bytes outside the file');
  if (statusCode === 403 || statusCode === 404) return new AppError('not_found', 'No such file');
  if (statusCode === 400) return invalidRequest([{ field: 'url', message: 'not the path of a file' }]);
  // Raised by Node's HTTP parser and connection checks, before Fastify sees a request (docs/api.md#errors-raised-by-the-http-layer).
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new AppError('request_timeout', 'The request did not arrive in time; the connection is closed');
  if (code === 'HPE_HEADER_OVERFLOW') return new AppError('headers_too_large', 'The request headers are larger than 16 KiB');
  if (code?.startsWith('HPE_')) return invalidRequest([{ field: 'request', message: 'not a well-formed HTTP/1.1 request' }]);
  return new AppError('internal_error', 'An internal error occurred; nothing was recorded. Retrying is safe.');
}

/** The AppError a request is answered with; the cause of an internal error is logged (docs/tracking.md#request-log). */
export function requestError(error: unknown, request: FastifyRequest): AppError {
  const appError = toAppError(error);
  if (appError.code === 'internal_error') request.log.error({ err: error }, 'request failed');
  return appError;
}

function replyWithError(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const appError = requestError(error, request);
  const retryAfter = appError.extra.retry_after_seconds;
  if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
  return reply.status(appError.status).send(errorBody(appError));
}

/** What Node keeps on a server socket: the request being received and the response being written. */
type HttpSocket = Socket & {
  parser?: { incoming?: { complete: boolean } | null } | null;
  _httpMessage?: { headersSent: boolean } | null;
};

/**
 * Whether the request still arriving on the socket already has its answer, written or begun: a
 * route may answer (401, 413) before reading a body that then stalls. Another answer would be one
 * the client never asked for, or would corrupt the one being written.
 */
function answered(socket: HttpSocket): boolean {
  const request = socket.parser?.incoming;
  if (!request || request.complete) return false; // its headers have not arrived: nothing answered it
  return !socket._httpMessage || socket._httpMessage.headersSent; // answered and detached, or being written
}

/**
 * A request Node refused before Fastify could see it, or one past its deadline: the answer is
 * written on the socket by hand, in the same envelope, and the connection closed.
 */
function answerClientError(this: FastifyInstance, error: Error & { code?: string }, socket: HttpSocket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const appError = toAppError(error);
  // Never the error itself: Node attaches the raw bytes it could not parse, headers and all.
  this.log.info({ status: appError.status, code: appError.code }, 'client error');
  if (socket.writable && !answered(socket)) {
    const body = JSON.stringify(errorBody(appError));
    socket.write(
      `HTTP/1.1 ${appError.status} ${STATUS_CODES[appError.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Fastify's options for the errors it raises outside a route's error handler. */
export const frameworkErrorOptions: Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler'> = {
  frameworkErrors: replyWithError,
  clientErrorHandler: answerClientError as FastifyServerOptions['clientErrorHandler'],
};

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(replyWithError);
  app.setNotFoundHandler((request, reply) => {
    const error = new AppError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}`);
    return reply.status(404).send(errorBody(error));
  });
}
