import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { serve, summarize, type Summary } from './lib.js';
import { NOW } from './report.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const PAGES_DIR = resolve(import.meta.dirname, '../web');

export type DashboardFigures = { load: Summary; complete: Summary; report: Summary; bundles: Record<string, { js: number; css: number }> };

/** Each page's script and stylesheet, gzipped, in bytes (the budget is per page: docs/pages.md#safe-by-construction). */
export function bundleSizes(): Record<string, { js: number; css: number }> {
  const files = readdirSync(join(PAGES_DIR, 'assets'));
  const gzipped = (page: string, ext: string) => gzipSync(readFileSync(join(PAGES_DIR, 'assets', files.find((f) => f.startsWith(`${page}-`) && f.endsWith(ext))!))).length;
  return Object.fromEntries(['dashboard', 'portal'].map((page) => [page, { js: gzipped(page, '.js'), css: gzipped(page, '.css') }]));
}

/**
 * The dashboard in headless Chromium over the demo's data set, 90 days: from navigation to the
 * chart drawn (its figure marked data-drawn, after the report, the per-partner report, the payout
 * preview and the previous period's report), one cold load then `warmRuns` warm ones (assets from
 * the browser's cache, the HTML and every API call fetched again); then until the commissions and
 * payouts lists are shown too (the page complete), and only then, on the idle server, the 90-day
 * report's own latency beside it.
 */
export async function benchDashboard(dataDir: string, programId: number, warmRuns = 5): Promise<DashboardFigures> {
  const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
  const server = await serve(dataDir, [], { PARTNERKIT_NOW: NOW });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // The tab holds the admin token as a signed-in tab holds its session (links carry one-time codes, never tokens).
    await page.addInitScript(`sessionStorage.setItem('partnerkit.dashboard.token', ${JSON.stringify(token)})`);
    const path = `${server.url}/dashboard?program=${programId}&period=90d`;
    const shown = (selector: string) => page.locator(selector).waitFor({ timeout: 120_000 });
    const visit = async () => {
      const started = performance.now();
      await page.goto(path);
      await shown('figure[data-drawn]');
      const drawn = performance.now() - started;
      await Promise.all([shown('#commission-list'), shown('#payout-list')]);
      return { drawn, complete: performance.now() - started };
    };
    await visit();
    const loads: number[] = [];
    const complete: number[] = [];
    const report: number[] = [];
    for (let i = 0; i < warmRuns; i++) {
      const times = await visit();
      loads.push(times.drawn);
      complete.push(times.complete);
      const started = performance.now();
      const response = await fetch(`${server.url}/api/tracking/performance/${programId}?period=90d`, { headers: { authorization: `Bearer ${token}` } });
      await response.json();
      report.push(performance.now() - started);
    }
    return { load: summarize(loads), complete: summarize(complete), report: summarize(report), bundles: bundleSizes() };
  } finally {
    await browser.close();
    await server.stop();
  }
}
