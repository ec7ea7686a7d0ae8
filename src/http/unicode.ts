import type { FastifyRequest } from 'fastify';
import { malformedStrings } from '../domain/unicode.js';
import { invalidRequest } from '../errors.js';

/**
 * preValidation on every route: a parsed body with a string or key that is not valid Unicode is
 * 400 invalid_request naming each such field (docs/api.md#requests). The webhook's body is still
 * raw bytes here; its pipeline makes such an event malformed_event (docs/webhooks.md#planning-an-event). Query strings need no
 * check: their percent-decoding refuses the UTF-8 of a surrogate and keeps the escaped text.
 */
export async function refuseMalformedStrings(request: FastifyRequest): Promise<void> {
  const fields = malformedStrings(request.body);
  if (fields.length > 0) {
    throw invalidRequest(fields.map((field) => ({ field: field || 'body', message: 'not valid Unicode (a lone UTF-16 surrogate)' })));
  }
}
