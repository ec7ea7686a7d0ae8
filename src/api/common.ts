import { z } from 'zod';
import { MAX_PAGE_LIMIT } from './constants.js';

/** A row id in a body: a positive integer that fits a double exactly. */
export const id = z.int().min(1).max(Number.MAX_SAFE_INTEGER);

/**
 * A row id in a path (docs/api.md#requests): decimal digits only, so `1e0`, `0x2`, `+2`, `02` or
 * ` 7` name no row instead of being read as a number that happens to exist.
 */
export const pathId = z
  .string()
  .regex(/^[1-9][0-9]*$/, 'a positive decimal integer without sign, leading zeros, exponent or spaces')
  .transform(Number)
  .pipe(z.number().max(Number.MAX_SAFE_INTEGER, `at most ${Number.MAX_SAFE_INTEGER}`));
export const programParams = z.object({ programId: pathId });

/**
 * Paging of a list (docs/refunds-and-payouts.md#the-status-a-commission-reads-as): at most `limit` rows from `offset` on; without
 * `limit` every row from `offset` on. The list's answer carries the number of matching rows in
 * the TOTAL_COUNT_HEADER header.
 */
export const pageQuery = z.object({
  limit: z.coerce.number<number>().int().min(1).max(MAX_PAGE_LIMIT).optional(),
  offset: z.coerce.number<number>().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
});

/** An instant as the API writes it: ISO 8601 in UTC (`toISOString()`). */
export const instant = z.iso.datetime();

/** GET /healthz: alive, and the service clock's reading (docs/api.md#time-and-the-one-clock), which signers of replayed webhooks use. */
export const health = z.object({ status: z.literal('ok'), now: instant });
export type Health = z.infer<typeof health>;

/** The platform error envelope (docs/api.md#envelopes). */
export const platformError = z
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

/** The `response` schemas of a route that answers 202 with `accepted`, and the error envelopes. */
export function acceptedResponses<T extends z.ZodType>(accepted: T) {
  return { 202: accepted, ...errorResponses };
}

/** The `response` schemas of a route that answers 204 without a body, and the error envelopes. */
export function noContentResponses() {
  return { 204: z.null().describe('No content'), ...errorResponses };
}
