import type { ExportFormat, SkipReason } from '../api/index.js';
import { csvNumber, csvRecord, type CsvCell } from '../csv.js';
import { centsText } from '../money.js';
import type { PartnerRow } from '../store/partners.js';
import type { PayoutRow } from '../store/payouts.js';

/** A payout with its partner, as an export reads it. */
export type ExportedPayout = { payout: PayoutRow; partner: PartnerRow };
export type SkippedPayout = { payoutId: number; partnerId: number; reason: SkipReason };

/** Records as RFC 4180 text, every record ended by CRLF. */
function csv(records: CsvCell[][]): string {
  return records.map((r) => `${csvRecord(r)}\r\n`).join('');
}

/** A payout's amount with two decimals, a number in the file. */
const amount = (p: PayoutRow) => csvNumber(centsText(p.amount_cents));

/** The id a PayPal or Wise row carries back to partnerkit (PayPal allows 30 characters, no spaces). */
const reference = (p: PayoutRow) => `pk-payout-${p.id}`;

type Format = {
  header: string[] | null;
  /** Why a payout cannot be in this file, or null. */
  skip(e: ExportedPayout): SkipReason | null;
  record(e: ExportedPayout): CsvCell[];
};

/**
 * A provider's file pays a partner who has a payout e-mail and chose that provider or no method
 * yet; a partner who chose another method is left to that method's file (docs/refunds-and-payouts.md#exporting-a-batch).
 */
const providerSkip =
  (method: 'paypal' | 'wise') =>
  ({ partner }: ExportedPayout): SkipReason | null => {
    if (partner.payout_method !== null && partner.payout_method !== method) return 'other_payout_method';
    return partner.payout_email === null ? 'no_payout_email' : null;
  };

const FORMATS: Record<ExportFormat, Format> = {
  csv: {
    header: ['partner_id', 'partner_name', 'payout_email', 'payout_method', 'currency', 'amount', 'commission_count', 'payout_id'],
    skip: () => null,
    record: ({ payout, partner }) => [
      partner.id, partner.name, partner.payout_email ?? '', partner.payout_method ?? '', payout.currency, amount(payout),
      payout.commission_ids.length, payout.id,
    ],
  },
  // PayPal Payouts web upload: no header; recipient, amount, currency, customer id, note, wallet.
  paypal: {
    header: null,
    skip: providerSkip('paypal'),
    record: ({ payout, partner }) => [
      partner.payout_email!, amount(payout), payout.currency, reference(payout), `Partner commission payout ${payout.id}`, 'PAYPAL',
    ],
  },
  // Wise batch payment, "send by email" template: the partner gets the exact amount in the payout's currency.
  wise: {
    header: ['name', 'recipientEmail', 'paymentReference', 'receiverType', 'amountCurrency', 'amount', 'sourceCurrency', 'targetCurrency'],
    skip: providerSkip('wise'),
    record: ({ payout, partner }) => [
      partner.name, partner.payout_email!, reference(payout), 'PERSON', 'target', amount(payout), payout.currency, payout.currency,
    ],
  },
};

export type ExportResult = { file: string; exported: number[]; skipped: SkippedPayout[] };

/** The file of `format` for the payouts (in payout order), the payouts in it, and the ones it left out and why. */
export function exportFile(format: ExportFormat, payouts: ExportedPayout[]): ExportResult {
  const { header, skip, record } = FORMATS[format];
  const records: CsvCell[][] = [];
  const exported: number[] = [];
  const skipped: SkippedPayout[] = [];
  for (const e of payouts) {
    const reason = skip(e);
    if (reason === null) {
      records.push(record(e));
      exported.push(e.payout.id);
    } else skipped.push({ payoutId: e.payout.id, partnerId: e.partner.id, reason });
  }
  return { file: csv(header ? [header, ...records] : records), exported, skipped };
}
