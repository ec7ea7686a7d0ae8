import { describe, expect, test } from 'vitest';
import type { PartnerReport } from '../../src/api/index.js';
import { renderPartnerReport } from '../../src/cli/performance.js';
import { partnerReportCsv } from '../../src/report-csv.js';

/** `report partners` output (docs/reports.md#report-partners) with the largest figures a 10-million-click demo reaches, and awkward names. */
const report: PartnerReport = {
  data: [
    {
      partnerId: 12, name: 'Ada "the closer", Lovelace Consulting International', refCode: 'k3xq9aa2mz',
      clicks: 2_345_678, leads: 123_456, conversions: 45_678, sales: 98_765, codeSales: 4_321, revenue: 12_345_678.9, commission: 2_469_135.78, conversionRate: 1.95,
    },
    { partnerId: 3, name: 'Bo', refCode: 'abcdefghij', clicks: 0, leads: 0, conversions: 0, sales: 0, codeSales: 0, revenue: 0, commission: 0, conversionRate: 0 },
  ],
  meta: { period: '90d', dateFrom: '2025-12-11T00:00:00.000Z', dateTo: '2026-03-10T23:59:59.999Z' },
};

describe('report partners output', () => {
  const now = new Date('2026-03-10T12:00:00Z');
  const enroll = 'partnerkit partner enroll --program 1 --partner ID';

  test('the table stays within 80 columns: long names are cut in their column', () => {
    const lines = renderPartnerReport(1, report, now, enroll).split('\n');
    expect(lines[0]).toBe('Program 1 partners, 90d: 2025-12-11 – 2026-03-10 (UTC days), by revenue');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(lines.join('\n')).toContain('12,345,678.90');
    expect(lines.join('\n')).toContain('2,345,678');
  });

  test('no partners: a line that says so', () => {
    expect(renderPartnerReport(1, { ...report, data: [] }, now, enroll)).toBe(
      `Program 1 partners, 90d: 2025-12-11 – 2026-03-10 (UTC days), by revenue\nNo partners in program 1 yet. Enroll one with: ${enroll}`,
    );
  });

  test('CSV quotes a name with a comma or quote and doubles its quotes', () => {
    expect(partnerReportCsv(report).split('\n')).toEqual([
      'partnerId,name,refCode,clicks,leads,conversions,sales,codeSales,revenue,commission,conversionRate',
      '12,"Ada ""the closer"", Lovelace Consulting International",k3xq9aa2mz,2345678,123456,45678,98765,4321,12345678.90,2469135.78,1.95',
      '3,Bo,abcdefghij,0,0,0,0,0,0.00,0.00,0.00',
    ]);
  });
});
