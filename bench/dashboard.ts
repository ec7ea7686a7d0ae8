import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { PAGES } from '../src/http/routes/pages.js';
import { serve, summarize, type Summary } from './lib.js';
import { NOW } from './report.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const PAGES_DIR = resolve(import.meta.dirname, '../web');

export type DashboardFigures = { load: Summary; switches: Summary; report: Summary; bundles: Record<string, { js: number; css: number }> };

/** Each page's script and stylesheet, gzipped, in bytes (the budget is per page: docs/pages.md#safe-by-construction). */
export function bundleSizes(): Record<string, { js: number; css: number }> {
  const files = readdirSync(join(PAGES_DIR, 'assets'));
  const gzipped = (page: string, ext: string) => gzipSync(readFileSync(join(PAGES_DIR, 'assets', files.find((f) => f.startsWith(`${page}-`) && f.endsWith(ext))!))).length;
  return Object.fromEntries(PAGES.map((page) => [page, { js: gzipped(page, '.js'), css: gzipped(page, '.css') }]));
}

/** The sections a switch goes to, in turn, and what each shows once drawn (docs/pages.md#sections-and-their-urls). */
const SWITCHES: Array<[string, string]> = [
  ['Partners', '#partner-list'],
  ['Commissions', '#commission-list'],
  ['Payouts', '#payout-list'],
  ['Settings', '#keys-table'],
  ['Overview', 'figure[data-drawn]'],
];

/**
 * The dashboard in headless Chromium over the demo's data set, 90 days: from navigation to the
 * Overview's chart drawn (its figure marked data-drawn, after the report, the per-partner report, the
 * payout preview and the previous period's report), one cold load then `warmRuns` warm ones (assets
 * from the browser's cache, the HTML and every API call fetched again); after each load, a click on
 * each section's link until that section's list is shown (a switch, without a reload); and only then,
 * on the idle server, the 90-day report's own latency beside it.
 */
export async function benchDashboard(dataDir: string, programId: number, warmRuns = 5): Promise<DashboardFigures> {
  const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
  const server = await serve(dataDir, [], { PARTNERKIT_NOW: NOW });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // The tab holds the admin token as a signed-in tab holds its session (links carry one-time codes, never tokens).
    await page.addInitScript(`sessionStorage.setItem('partnerkit.dashboard.token', ${JSON.stringify(token)})`);
    const path = `${server.url}/dashboard/overview?program=${programId}&period=90d`;
    const shown = (selector: string) => page.locator(selector).first().waitFor({ timeout: 120_000 });
    const visit = async () => {
      const started = performance.now();
      await page.goto(path);
      await shown('figure[data-drawn]');
      return performance.now() - started;
    };
    const switchAll = async () => {
      const times: number[] = [];
      for (const [label, selector] of SWITCHES) {
        const started = performance.now();
        await page.getByRole('link', { name: label, exact: true }).click();
        await shown(selector);
        times.push(performance.now() - started);
      }
      return times;
    };
    await visit();
    await switchAll();
    const loads: number[] = [];
    const switches: number[] = [];
    const report: number[] = [];
    for (let i = 0; i < warmRuns; i++) {
      loads.push(await visit());
      switches.push(...(await switchAll()));
      const started = performance.now();
      const response = await fetch(`${server.url}/api/tracking/performance/${programId}?period=90d`, { headers: { authorization: `Bearer ${token}` } });
      await response.json();
      report.push(performance.now() - started);
    }
    return { load: summarize(loads), switches: summarize(switches), report: summarize(report), bundles: bundleSizes() };
  } finally {
    await browser.close();
    await server.stop();
  }
}
