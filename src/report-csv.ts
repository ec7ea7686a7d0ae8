import type { Commission, PartnerReport, PartnerReportRow, PerformanceReport } from './api/index.js';
import { csvNumber, csvRecord } from './csv.js';

/*
 * The lists as CSV, the same bytes from the CLI's --csv and the dashboard's downloads
 * (docs/pages.md#csv-downloads): RFC 4180 records with a header, money with two decimals.
 */

const CSV_FIELDS = ['date', 'period', 'clicks', 'leads', 'conversions', 'revenue', 'partners', 'sales', 'commission'] as const;

/** A header line and one line per day; money with two decimals. */
export function performanceCsv(report: PerformanceReport): string {
  const lines = report.data.map((d) =>
    csvRecord(CSV_FIELDS.map((field) => (field === 'revenue' || field === 'commission' ? csvNumber(d[field].toFixed(2)) : d[field]))),
  );
  return [CSV_FIELDS.join(','), ...lines].join('\n');
}

const PARTNER_CSV_FIELDS = ['partnerId', 'name', 'refCode', 'clicks', 'leads', 'conversions', 'sales', 'codeSales', 'revenue', 'commission', 'conversionRate'] as const;

/** A header line and one line per partner; money and the rate with two decimals. */
export function partnerReportCsv(report: PartnerReport): string {
  const cell = (r: PartnerReportRow, field: (typeof PARTNER_CSV_FIELDS)[number]) => {
    const value = r[field];
    return field === 'revenue' || field === 'commission' || field === 'conversionRate' ? csvNumber((value as number).toFixed(2)) : value;
  };
  return [PARTNER_CSV_FIELDS.join(','), ...report.data.map((r) => csvRecord(PARTNER_CSV_FIELDS.map((f) => cell(r, f))))].join('\n');
}

const COMMISSION_CSV_FIELDS = ['id', 'partnerId', 'partnerName', 'saleId', 'type', 'amount', 'currency', 'status', 'holdUntil', 'createdAt', 'payoutId', 'paidAt', 'reason'] as const;

/** A header line and one line per commission; the amount in currency units with two decimals, empty cells for nulls. */
export function commissionsCsv(commissions: Commission[], names: Map<number, string>): string {
  const lines = commissions.map((c) =>
    csvRecord([
      c.id, c.partnerId, names.get(c.partnerId) ?? '', c.saleId ?? '', c.type, csvNumber((c.amountCents / 100).toFixed(2)), c.currency, c.status, c.holdUntil, c.createdAt,
      c.payoutId ?? '', c.paidAt ?? '', c.reason ?? '',
    ]),
  );
  return [COMMISSION_CSV_FIELDS.join(','), ...lines].join('\n');
}
