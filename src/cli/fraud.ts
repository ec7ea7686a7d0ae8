import type { FraudEvent } from '../api/index.js';
import { formatWhen, renderTable } from './output.js';
import { amountText } from './payouts.js';

/** Fraud events, newest first: the commission, its partner, the rule and what it did (flag or hold), the commission's status now. */
export function renderFraudEvents(events: FraudEvent[], now: Date, empty: string): string {
  return renderTable(
    [
      { header: 'id', value: (e) => e.commissionId, align: 'right' },
      { header: 'partner', value: (e) => `#${e.partnerId} ${e.partnerName}`, shrink: 'end' },
      { header: 'rule', value: (e) => `${e.rule} ${e.action}` },
      { header: 'status', value: (e) => e.commissionStatus },
      { header: 'amount', value: (e) => amountText(e.amountCents, e.currency), align: 'right' },
      { header: 'when', value: (e) => formatWhen(e.createdAt, now) },
    ],
    events,
    { empty },
  );
}
