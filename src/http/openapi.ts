import { z } from 'zod';

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

/** Documents the error envelopes in OpenAPI; error bodies are sent by the error handler, not serialized. */
export const errorResponses = {
  '4XX': z.union([platformError, typedError]),
  '5XX': platformError,
};
