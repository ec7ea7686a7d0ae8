import { parse } from 'csv-parse/sync';
import { describe, expect, test } from 'vitest';
import type { PartnerReport } from '../../src/api/index.js';
import { partnerReportCsv } from '../../src/cli/performance.js';
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
