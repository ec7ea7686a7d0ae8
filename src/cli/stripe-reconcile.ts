import type { ReconcileReport } from '../api/index.js';

/** A reconciliation's counts, then each event it skipped or that failed, with why (docs/stripe-reconciliation.md#running-it). */
export function renderReconcileReport(r: ReconcileReport): string {
  return [
    `Program ${r.programId}, Stripe events since ${r.since}${r.dryRun ? ' (dry run: nothing recorded)' : ''}`,
    `checked           ${r.checked}`,
    `already recorded  ${r.alreadyRecorded.length}`,
    `${r.dryRun ? 'to record        ' : 'recorded now     '} ${r.recordedNow.length}`,
    `skipped           ${r.skipped.length}`,
    `failed            ${r.failed.length}`,
    ...r.skipped.map((s) => `  ${s.eventId} ${s.outcome}: ${s.reason ?? ''}`),
    ...r.failed.map((f) => `  ${f.eventId} failed: ${f.error}`),
  ].join('\n');
}
