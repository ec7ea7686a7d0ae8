import { z } from 'zod';

/** A row id in a path or body: a positive integer that fits a double exactly. */
export const id = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);
export const programParams = z.object({ programId: id });
