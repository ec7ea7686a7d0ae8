import { z } from 'zod';

/**
 * A row id in a path, query or body: a positive integer that fits a double exactly. Paths carry it
 * as text, hence the coercion; callers of the API pass numbers.
 */
export const id = z.coerce.number<number>().int().min(1).max(Number.MAX_SAFE_INTEGER);
export const programParams = z.object({ programId: id });

/** An instant as the API writes it: ISO 8601 in UTC (`toISOString()`). */
export const instant = z.iso.datetime();

const platformError = z
  .object({
    data: z.null(),
    error: z.object({
      status: z.number().int(),
      name: z.string(),
      message: z.string(),
      details: z.unknown(),
      code: z.string(),
    }),
  })
  .describe('Platform error envelope');

const typedError = z
  .object({ error: z.looseObject({ code: z.string(), message: z.string() }) })
  .describe('Typed error envelope (retired API key, rate limiting)');

/** The error envelopes every route may answer with (the error handler builds them). */
const errorResponses = {
  '4XX': z.union([platformError, typedError]),
  '5XX': platformError,
};

/** A route's `response` schemas: its 200 body and the error envelopes. */
export function responses<T extends z.ZodType>(ok: T) {
  return { 200: ok, ...errorResponses };
}
