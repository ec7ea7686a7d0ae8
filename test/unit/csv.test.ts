import { parse } from 'csv-parse/sync';
import { describe, expect, test } from 'vitest';
import type { PartnerReport } from '../../src/api/index.js';
import { commissionsCsv, partnerReportCsv } from '../../src/report-csv.js';
import { exportFile } from '../../src/domain/payout-export.js';
import { FORMULAS } from '../helpers/factories.js';

/** The JavaScript CSV writers (docs/exports.md#csv-cells-a-spreadsheet-would-run): the payout files and `report --csv`. */
const neutral = FORMULAS.map((text) => `'${text}`);

describe('CSV cells a spreadsheet would run', () => {
  test("report partners --csv: names and referral codes starting with = + - @ tab or CR get a leading '; negative numbers stay numbers", () => {
    const row = { partnerId: 1, clicks: 3, leads: 1, conversions: 1, sales: 1, codeSales: 0, revenue: -12.5, commission: -2.5, conversionRate: 33.33 };
    const report: PartnerReport = {
      data: FORMULAS.map((text, i) => ({ ...row, partnerId: i + 1, name: text, refCode: text })),
      meta: { period: '7d', dateFrom: '2026-03-04T00:00:00.000Z', dateTo: '2026-03-10T23:59:59.999Z' },
    };
    const rows = parse(partnerReportCsv(report), { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => [r.name, r.refCode, r.revenue, r.commission])).toEqual(neutral.map((text) => [text, text, '-12.50', '-2.50']));
  });

  test('commission list --csv and the dashboard download: amounts in currency units, a clawback negative, nulls empty, names and reasons neutralised', () => {
    const base = { programId: 1, saleId: 7, currency: 'EUR', holdUntil: '2026-04-01T00:00:00.000Z', createdAt: '2026-03-02T10:00:00.000Z' };
    const csv = commissionsCsv(
      [
        { ...base, id: 1, partnerId: 2, type: 'sale', amountCents: 1234, status: 'paid', payoutId: 9, paidAt: '2026-04-02T00:00:00.000Z', reason: null },
        { ...base, id: 2, partnerId: 3, type: 'clawback', amountCents: -50, status: 'rejected', payoutId: null, paidAt: null, reason: '=HYPERLINK("x")' },
      ],
      new Map([[2, 'Ann, "the" best'], [3, '@bob']]),
    );
    expect(csv.split('\n')).toEqual([
      'id,partnerId,partnerName,saleId,type,amount,currency,status,holdUntil,createdAt,payoutId,paidAt,reason',
      '1,2,"Ann, ""the"" best",7,sale,12.34,EUR,paid,2026-04-01T00:00:00.000Z,2026-03-02T10:00:00.000Z,9,2026-04-02T00:00:00.000Z,',
      `2,3,'@bob,7,clawback,-0.50,EUR,rejected,2026-04-01T00:00:00.000Z,2026-03-02T10:00:00.000Z,,,"'=HYPERLINK(""x"")"`,
    ]);
  });

  test('payout files: a negative amount is written as a number, names are neutralised', () => {
    const payouts = FORMULAS.map((name, i) => ({
      payout: { id: i + 1, batch_id: 1, program_id: 1, partner_id: i + 1, currency: 'USD', amount_cents: -1050n, status: 'processing' as const, created_at: new Date(0), paid_at: null, commission_ids: [1] },
      partner: { id: i + 1, name, email: `p${i}@example.com`, created_at: new Date(0), payout_method: null, payout_email: `p${i}@example.com`, status: 'active' as const },
    }));
    const csv = parse(exportFile('csv', payouts).file) as string[][];
    expect(csv.slice(1).map((r) => [r[1], r[5]])).toEqual(neutral.map((name) => [name, '-10.50']));
    const wise = parse(exportFile('wise', payouts).file) as string[][];
    expect(wise.slice(1).map((r) => [r[0], r[5]])).toEqual(neutral.map((name) => [name, '-10.50']));
    expect((parse(exportFile('paypal', payouts).file) as string[][]).map((r) => r[1])).toEqual(FORMULAS.map(() => '-10.50'));
  });
});
