import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cliEnv, runCli } from '../helpers/cli.js';

// Runs against dist/: `npm run build` first.
const NOW = '2026-03-10T15:00:00.000Z';
// One data dir for the whole file (the demo is loaded once), so not tempDataDir's per-test cleanup.
const dirs: string[] = [];

function cli(dataDir: string, args: string[], env: Record<string, string> = {}) {
  return runCli(args, cliEnv(dataDir, { PARTNERKIT_NOW: NOW, PARTNERKIT_SESSION_TOKEN: '', ...env }));
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'partnerkit-report-'));
  dirs.push(dir);
  return dir;
}

const DEMO = ['demo', '--days', '10', '--clicks', '3000', '--seed', '5', '--json'];
let dataDir: string;
let demo: { programId: number; sessionToken: string; counts: Record<string, number> };

beforeAll(async () => {
  dataDir = tempDir();
  const result = await cli(dataDir, DEMO);
  expect(result.code, result.stderr).toBe(0);
  demo = JSON.parse(result.stdout);
});

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('partnerkit demo', () => {
  test('loads the requested history; the report over all of it adds up to the demo counts', async () => {
    expect(demo.programId).toBe(1);
    expect(demo.counts.clicks).toBe(3000);
    const all = JSON.parse((await cli(dataDir, ['report', 'performance', '1', '--period', 'all', '--json'])).stdout);
    expect(all.meta).toMatchObject({ period: 'all', dateFrom: '2026-03-01T00:00:00.000Z', dateTo: '2026-03-10T23:59:59.999Z' });
    expect(all.data).toHaveLength(10);
    expect(all.metrics).toMatchObject({
      totalClicks: 3000,
      totalConversions: demo.counts.conversions,
      totalSales: demo.counts.sales,
      totalPartners: demo.counts.partners,
      totalLeads: demo.counts.leads - demo.counts.conversions,
    });
    expect(all.data.reduce((sum: number, d: { leads: number }) => sum + d.leads, 0)).toBe(demo.counts.leads);
  });

  test('the same seed gives the same history', async () => {
    const other = tempDir();
    const again = await cli(other, DEMO);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout).counts).toEqual(demo.counts);
    const args = ['report', 'performance', '1', '--period', 'all', '--json'];
    expect((await cli(other, args)).stdout).toBe((await cli(dataDir, args)).stdout);
  });
});

describe('partnerkit report performance', () => {
  test('--json prints the endpoint body', async () => {
    const result = await cli(dataDir, ['report', 'performance', '1', '--json']);
    expect(result.code).toBe(0);
    const body = JSON.parse(result.stdout);
    expect(Object.keys(body)).toEqual(['data', 'metrics', 'meta']);
    expect(body.meta).toEqual({
      period: '7d',
      dateFrom: '2026-03-04T00:00:00.000Z',
      dateTo: '2026-03-10T23:59:59.999Z',
      previousPeriod: { dateFrom: '2026-02-25T00:00:00.000Z', dateTo: '2026-03-03T23:59:59.999Z' },
    });
  });

  test('the table: dates in the heading, a row per day, totals with trend arrows, within 80 columns', async () => {
    const body = JSON.parse((await cli(dataDir, ['report', 'performance', '1', '--json'])).stdout);
    const { stdout, code } = await cli(dataDir, ['report', 'performance', '1']);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('Program 1 performance, 7d: 2026-03-04 – 2026-03-10 (UTC)');
    expect(lines[1]).toBe('Compared with 2026-02-25 – 2026-03-03');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    expect(body.data).toHaveLength(7);
    for (const day of body.data) {
      const row = lines.find((l) => l.startsWith(`│ ${day.date} `))!;
      const cells = row.split('│').slice(1, -1).map((c) => c.trim().replace(/,/g, ''));
      expect(cells).toEqual([
        day.date, String(day.clicks), String(day.leads), String(day.conversions), day.revenue.toFixed(2),
        String(day.partners), '0', day.commission.toFixed(2),
      ]);
    }
    const arrows = { up: '▲', down: '▼', stable: '■' } as const;
    const clicks = lines.find((l) => l.startsWith('│ Clicks '))!;
    const t = body.metrics.clicksTrend as { trend: number; trendDirection: keyof typeof arrows };
    expect(clicks).toContain(`${arrows[t.trendDirection]} ${t.trend.toFixed(1)}%`);
    expect(clicks).toContain(body.metrics.totalClicks.toLocaleString('en-US'));
    expect(lines.find((l) => l.startsWith('│ Conversion rate '))).toContain(`${body.metrics.conversionRate.toFixed(2)}%`);
  });

  test('--csv prints a header line and one line per day', async () => {
    const body = JSON.parse((await cli(dataDir, ['report', 'performance', '1', '--from', '2026-03-08', '--to', '2026-03-10', '--json'])).stdout);
    const { stdout } = await cli(dataDir, ['report', 'performance', '1', '--from', '2026-03-08', '--to', '2026-03-10', '--csv']);
    const d = body.data as Array<Record<string, number | string>>;
    expect(stdout).toBe(
      [
        'date,period,clicks,leads,conversions,revenue,partners,sales,commission',
        ...d.map((r) => [r.date, r.period, r.clicks, r.leads, r.conversions, (r.revenue as number).toFixed(2), r.partners, r.sales, (r.commission as number).toFixed(2)].join(',')),
      ].join('\n') + '\n',
    );
    expect(d.map((r) => r.date)).toEqual(['2026-03-08', '2026-03-09', '2026-03-10']);
  });

  test('a session token is used when given; a bad one fails with its error code', async () => {
    const ok = await cli(dataDir, ['report', 'performance', '1', '--json'], { PARTNERKIT_SESSION_TOKEN: demo.sessionToken });
    expect(ok.code).toBe(0);
    const bad = await cli(dataDir, ['report', 'performance', '1', '--session-token', 'pks_nope']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('unauthorized');
    const missing = await cli(dataDir, ['report', 'performance', '99', '--json']);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout).error).toMatchObject({ code: 'not_found', status: 404 });
  });
});
