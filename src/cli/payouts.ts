import { Flags } from '@oclif/core';
import type { Commission, Payout } from '../api/index.js';
import type { PartnerkitClient } from '../sdk/client.js';
import { formatCents, formatWhen, renderTable, type Column } from './output.js';

/** `--ids 1,2,3`: positive integer ids, comma-separated. */
export const idsFlag = Flags.custom<number[]>({
  description: 'commission ids, comma-separated (all of them are changed, or none)',
  required: true,
  parse: async (input) => {
    const ids = input.split(',').map((part) => part.trim());
    if (ids.some((id) => !/^[1-9][0-9]*$/.test(id) || !Number.isSafeInteger(Number(id)))) throw new Error(`--ids takes positive integers separated by commas, not ${input}`);
    return ids.map(Number);
  },
})();

/** A program's partner names by id, in one request: tables name partners instead of showing bare ids. */
export async function partnerNames(client: PartnerkitClient, programId: number): Promise<Map<number, string>> {
  return new Map((await client.programPartners.list(programId)).map((p) => [p.partnerId, p.name]));
}

/** A partner as tables show them: the id first, so a long name cut short still says who. */
export const partnerLabel = (names: Map<number, string>, partnerId: number) => `#${partnerId} ${names.get(partnerId) ?? ''}`.trimEnd();

/** Cents with their currency: `123,456.78 USD`. */
export const amountText = (cents: number, currency: string) => `${formatCents(cents)} ${currency}`;

/** Commissions, one line each; a reason column only when one of them was rejected with a reason. */
export function renderCommissions(commissions: Commission[], names: Map<number, string>, now: Date, empty: string): string {
  const columns: Column<Commission>[] = [
    { header: 'id', value: (c) => c.id, align: 'right' },
    { header: 'partner', value: (c) => partnerLabel(names, c.partnerId), shrink: 'end' },
    { header: 'amount', value: (c) => amountText(c.amountCents, c.currency), align: 'right' },
    { header: 'status', value: (c) => c.status },
    { header: 'hold until', value: (c) => formatWhen(c.holdUntil, now) },
    { header: 'payout', value: (c) => c.payoutId, align: 'right' },
  ];
  if (commissions.some((c) => c.reason !== null)) columns.push({ header: 'reason', value: (c) => c.reason, shrink: 'end' });
  return renderTable(columns, commissions, { empty });
}

/** Payouts, one line each, with the time each was paid (`payout show` lists a payout's commissions). */
export function renderPayouts(payouts: Payout[], names: Map<number, string>, now: Date, empty: string): string {
  return renderTable(
    [
      { header: 'id', value: (p) => p.id, align: 'right' },
      { header: 'batch', value: (p) => p.batchId, align: 'right' },
      { header: 'partner', value: (p) => partnerLabel(names, p.partnerId), shrink: 'end' },
      { header: 'amount', value: (p) => amountText(p.amountCents, p.currency), align: 'right' },
      { header: 'status', value: (p) => p.status },
      { header: 'paid', value: (p) => (p.paidAt === null ? null : formatWhen(p.paidAt, now)) },
    ],
    payouts,
    { empty },
  );
}
