import type { FastifyError, FastifyInstance } from 'fastify';
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
  const fastifyError = error as FastifyError;
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new AppError('payload_too_large', 'The request body is larger than this endpoint accepts');
  }
  if (typeof fastifyError.code === 'string' && fastifyError.code.startsWith('FST_ERR_CTP_')) {
    return invalidRequest([{ field: 'body', message: fastifyError.message }]);
  }
  if (fastifyError.statusCode === 400 && fastifyError instanceof SyntaxError) {
    return invalidRequest([{ field: 'body', message: 'Body is not valid JSON' }]);
  }
  return new AppError('internal_error', 'An internal error occurred; nothing was recorded. Retrying is safe.');
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((error, request, reply) => {
    const appError = toAppError(error);
    if (appError.code === 'internal_error') request.log.error({ err: error }, 'request failed');
    const retryAfter = appError.extra.retry_after_seconds;
    if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
    return reply.status(appError.status).send(errorBody(appError));
  });
  app.setNotFoundHandler((request, reply) => {
    const error = new AppError('not_found', `No route for ${request.method} ${request.url.split('?')[0]}`);
    return reply.status(404).send(errorBody(error));
  });
}
