import { z } from 'zod';
import { OUTCOME_REASONS } from './webhooks.js';

export const reconcileRequestSchema = z.object({
  since: z.iso.datetime({ offset: true }).optional().describe('Events created from this instant on (default: the 30 days Stripe keeps them)'),
  dryRun: z.boolean().default(false).describe('Only count the events that would be recorded'),
});

export const reconcileReportSchema = z.object({
  programId: z.int(),
  since: z.string(),
  dryRun: z.boolean(),
  checked: z.int().describe("Events of the handled types Stripe listed"),
  alreadyRecorded: z.array(z.string()).describe('Event ids partnerkit had stored'),
  recordedNow: z.array(z.string()).describe('Event ids recorded now (in a dry run: that would be sent)'),
  skipped: z.array(z.object({ eventId: z.string(), outcome: z.enum(['skipped', 'ignored']), reason: z.enum(OUTCOME_REASONS).nullable() })),
  failed: z.array(z.object({ eventId: z.string(), error: z.string() })),
});

export type ReconcileRequest = z.input<typeof reconcileRequestSchema>;
export type ReconcileReport = z.output<typeof reconcileReportSchema>;
