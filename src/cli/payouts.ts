import { Flags } from '@oclif/core';
import type { Commission, Payout } from '../api/index.js';
import { formatCents, renderTable } from './output.js';


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

export function renderCommissions(commissions: Commission[]): string {
  return renderTable(
    [
      { header: 'id', value: (c) => c.id },
      { header: 'partner', value: (c) => c.partnerId },
      { header: 'sale', value: (c) => c.saleId },
      { header: 'type', value: (c) => c.type },
      { header: 'amount', value: (c) => `${formatCents(c.amountCents)} ${c.currency}`, align: 'right' },
      { header: 'status', value: (c) => c.status },
      { header: 'hold until', value: (c) => c.holdUntil },
      { header: 'payout', value: (c) => c.payoutId },
      { header: 'reason', value: (c) => c.reason },
    ],
    commissions,
    { compact: true },
  );
}

export function renderPayouts(payouts: Payout[]): string {
  return renderTable(
    [
      { header: 'id', value: (p) => p.id },
      { header: 'batch', value: (p) => p.batchId },
      { header: 'partner', value: (p) => p.partnerId },
      { header: 'amount', value: (p) => `${formatCents(p.amountCents)} ${p.currency}`, align: 'right' },
      { header: 'commissions', value: (p) => p.commissionIds.length, align: 'right' },
      { header: 'status', value: (p) => p.status },
      { header: 'created', value: (p) => p.createdAt },
      { header: 'paid', value: (p) => p.paidAt },
    ],
    payouts,
    { compact: true },
  );
}
