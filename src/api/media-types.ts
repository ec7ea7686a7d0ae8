/**
 * Media types of the contract. This module imports nothing, so the SDK may import it at run time
 * without loading zod (every other src/api module it imports as types only).
 */

/** A streamed answer: one JSON document a line (docs/api.md#demo-data). */
export const NDJSON = 'application/x-ndjson';
