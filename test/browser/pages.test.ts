import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { PartnerkitClient } from '../../src/sdk/client.js';
import type { PortalCommissions, PortalMe, PortalPerformance } from '../../src/api/portal.js';
import type { PerformanceReport } from '../../src/api/reports.js';
import { BIN, cliEnv, runCli, runJson } from '../helpers/cli.js';
import { receiver } from '../helpers/receiver.js';

/**
 * The dashboard and the partner portal (docs/pages.md#the-dashboard-and-the-partner-portal) in Debian's headless Chromium
 * against a real `serve` with a pinned clock: the demo's history (program 1) and a small program
 * with manual approval (program 2) whose partners are Alice and one named like an XSS attack.
 * Every number on the pages is compared with the API's answer. UPDATE_SCREENSHOTS=1 rewrites
 * docs/screenshots/ from the same pages.
 */
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const NOW = '2026-03-01T12:00:00.000Z';
const XSS = '<img src=x onerror="window.__xss=1">';
const SCREENSHOTS = resolve(import.meta.dirname, '../../docs/screenshots');
/** axe-core's source, injected into a page to audit it. */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let dir: string;
let serve: ChildProcess;
let url: string;
let browser: Browser;
let admin: PartnerkitClient;
let member: PartnerkitClient;
let sessionToken: string;
let memberEmail: string;
let expiredToken: string;
let manual: { id: number; alice: number; xss: number };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'partnerkit-pages-'));
  const env = cliEnv(dir, { PARTNERKIT_NOW: NOW });
  const demo = await runJson(['demo', '--clicks', '20000'], env);
  sessionToken = demo.sessionToken;
  memberEmail = demo.memberEmail;
  // A session that ran out a day before the server's now: made with the clock two days back.
  expiredToken = (await runJson(['session', 'create', '--email', demo.memberEmail, '--ttl-hours', '24'], cliEnv(dir, { PARTNERKIT_NOW: '2026-02-27T12:00:00.000Z' }))).token;

  serve = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env, stdio: 'ignore' });
  const discovery = join(dir, 'server.json');
  while (!existsSync(discovery) || !readFileSync(discovery, 'utf8').includes(`"pid":${serve.pid}`)) await new Promise((r) => setTimeout(r, 50));
  url = JSON.parse(readFileSync(discovery, 'utf8')).url;
  admin = new PartnerkitClient({ baseUrl: url, token: readFileSync(join(dir, 'admin-token'), 'utf8').trim() });
  member = new PartnerkitClient({ baseUrl: url, token: sessionToken });

  const program = await manualProgram('Manual program', 0);
  const alice = await partnerWithSales(program, 'Alice', 'alice@example.com', [10_000, 25_050]);
  await admin.partners.update(alice, { payoutMethod: 'paypal', payoutEmail: 'alice@pay.example' });
  manual = { id: program.id, alice, xss: await partnerWithSales(program, XSS, 'xss@example.com', [4_999]) };
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}, 120_000);

/** A program with manual approval, 10 % commissions and `holdDays`, the demo's member one of its members. */
async function manualProgram(name: string, holdDays: number) {
  const program = await admin.programs.create({ name, approval: 'manual', holdDays, commissionPercent: 10 });
  await admin.members.add(program.id, { email: memberEmail });
  return program;
}

/** A partner enrolled in `program` with a sale of each amount (cents), each by a customer of its own; answers the partner's id. */
async function partnerWithSales(program: { id: number; apiKey: string }, name: string, email: string, sales: number[]): Promise<number> {
  const tracker = new PartnerkitClient({ baseUrl: url, apiKey: program.apiKey });
  const created = await admin.partners.create({ name, email });
  const { refCode } = await admin.partners.enroll(program.id, { partnerId: created.id });
  for (const [i, amount] of sales.entries()) {
    const customerExternalId = `${email}-customer-${i}`;
    const { clickId } = await tracker.trackClick({ ref: refCode, ip: `10.0.0.${i + 1}` });
    await tracker.trackLead({ customerExternalId, clickId });
    await tracker.trackSale({ customerExternalId, amount, invoiceId: `${email}-in-${i}` });
  }
  return created.id;
}

afterAll(async () => {
  await browser?.close();
  serve?.kill('SIGTERM');
  await new Promise((r) => serve?.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}, 30_000);

/**
 * A fresh profile in en-US on UTC (the numbers the test expects), 1280 or 375 wide; closed after the
 * test. `stored` puts a token in the tab's sessionStorage before the page loads (a session the tab
 * already holds).
 */
async function open(path: string, width = 1280, stored?: [string, string], audit = false): Promise<{ context: BrowserContext; page: Page }> {
  // axe is injected as a script of the test's own: the pages' policy refuses it, so an audit sets the policy aside.
  const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC', viewport: { width, height: 900 }, acceptDownloads: true, bypassCSP: audit });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const page = await context.newPage();
  if (stored) await page.addInitScript(([key, token]) => sessionStorage.setItem(key, token), stored);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => void (message.type() === 'error' && !message.text().includes('401') && errors.push(message.text())));
  await page.goto(`${url}${path}`);
  (page as Page & { errors: string[] }).errors = errors;
  return { context, page };
}

/** A dashboard sign-in link's fragment, as `session create` prints it: a new one-time code. */
const memberLink = async () => `#code=${(await admin.sessions.create({ email: memberEmail })).signInCode}`;

const usd = (value: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(value);
const count = (value: number) => new Intl.NumberFormat('en-US').format(value);
const percent = (value: number) => new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 2 }).format(value / 100);
const ARROW = { up: '▲', down: '▼', stable: '■' };

/**
 * What each KPI card must show for a report and the report of its previous period: value and trend,
 * "new" where the previous period had none.
 */
function expectedCards(report: PerformanceReport, previous: PerformanceReport) {
  const m = report.metrics;
  const trend = (metric: keyof PerformanceReport['metrics'], t: { trend: number; trendDirection: 'up' | 'down' | 'stable' }) =>
    previous.metrics[metric] === 0 && t.trendDirection === 'up' ? 'new' : `${ARROW[t.trendDirection]} ${percent(t.trend)}`;
  return {
    totalClicks: [count(m.totalClicks), trend('totalClicks', m.clicksTrend)],
    totalLeads: [count(m.totalLeads), trend('totalLeads', m.leadsTrend)],
    totalConversions: [count(m.totalConversions), trend('totalConversions', m.conversionsTrend)],
    totalSales: [count(m.totalSales), trend('totalSales', m.salesTrend)],
    totalRevenue: [usd(m.totalRevenue), trend('totalRevenue', m.revenueTrend)],
    totalPartnersCommission: [usd(m.totalPartnersCommission), trend('totalPartnersCommission', m.commissionTrend)],
    totalRefunded: [usd(m.totalRefunded), trend('totalRefunded', m.refundedTrend)],
    totalPartners: [count(m.totalPartners), trend('totalPartners', m.partnersTrend)],
    conversionRate: [percent(m.conversionRate), ''],
    averageOrderValue: [usd(m.averageOrderValue), ''],
  };
}

/** The demo program's report for a query, and the report of its previous period. */
async function reportsFor(query: Parameters<PartnerkitClient['reports']['performance']>[1]) {
  const report = await member.reports.performance(1, query);
  const previous = await member.reports.performance(1, { dateFrom: report.meta.previousPeriod.dateFrom, dateTo: report.meta.previousPeriod.dateTo });
  return { report, previous, cards: expectedCards(report, previous) };
}

/** The chart's day ticks as en-US writes them, its value axes' lower ends, and its note on the partial day. */
async function shownChart(page: Page) {
  const figure = page.locator('figure.chart[data-drawn]').first();
  const note = figure.locator('.chart-note');
  return { ticks: (await figure.getAttribute('data-ticks'))!.split('|'), from: await figure.getAttribute('data-from'), note: (await note.count()) === 0 ? null : await note.textContent() };
}
const shortDay = (day: string) => new Intl.DateTimeFormat('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(new Date(`${day}T00:00:00Z`));

async function shownCards(page: Page) {
  await page.locator('figure[data-drawn]').first().waitFor();
  return page.$$eval('.kpi', (cards) =>
    Object.fromEntries(cards.map((c) => [c.getAttribute('data-metric'), [c.querySelector('.value')!.textContent, c.querySelector('.trend')?.textContent?.trim() ?? '']])),
  );
}

const leaderboardRows = (page: Page) => page.$$eval('#leaderboard tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)));

/** axe-core's serious and critical violations on the page as it is, as `rule (nodes)`; it must have checked more than 10 rules. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: AXE });
  const { passed, violations } = await page.evaluate(async () => {
    type Rule = { id: string; impact: string; nodes: unknown[] };
    const result = await (window as unknown as { axe: { run(): Promise<{ passes: Rule[]; violations: Rule[] }> } }).axe.run();
    return { passed: result.passes.length, violations: result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.nodes.length})`) };
  });
  expect(passed, 'axe checked rules').toBeGreaterThan(10);
  return violations;
}

async function screenshot(page: Page, name: string) {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

describe('the dashboard', () => {
  test('without a session: the sign-in message with the e-mail field and the command; the page has the policy and no-store', async () => {
    const { context, page } = await open('/dashboard');
    try {
      const response = await page.request.get(`${url}/dashboard`);
      expect(response.headers()['content-security-policy']).toMatch(/script-src 'self';/);
      expect(response.headers()['content-security-policy']).not.toContain('unsafe-inline');
      expect(response.headers()['cache-control']).toBe('no-store');
      await expect.poll(() => page.locator('#sign-in').textContent()).toBe(
        'partnerkit dashboardYou are not signed in.Your e-mail addressE-mail me a sign-in linkOr run partnerkit session create --email <your e-mail> and open the link it prints.',
      );
    } finally {
      await context.close();
    }
  });

  test('an expired session: back to the sign-in message, the token forgotten', async () => {
    const { context, page } = await open('/dashboard', 1280, ['partnerkit.dashboard.token', expiredToken]);
    try {
      await expect.poll(() => page.locator('#sign-in [role=status]').textContent()).toBe('Your session has expired. Sign in again.');
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
      expect(page.url()).toBe(`${url}/dashboard`);
    } finally {
      await context.close();
    }
  });

  test('a sign-in link already used: the page says so and how to get a new one; no session is kept', async () => {
    const link = await memberLink();
    await admin.sessions.exchange(link.slice('#code='.length));
    const { context, page } = await open(`/dashboard?period=30d${link}`);
    try {
      await expect.poll(() => page.locator('#sign-in').textContent()).toBe(
        'partnerkit dashboard' +
          'This sign-in link has expired or has already been used: a link works once, within 15 minutes. Ask for a new one.' +
          'Your e-mail addressE-mail me a sign-in link' +
          'Or run partnerkit session create --email <your e-mail> and open the link it prints.',
      );
      expect(page.url()).toBe(`${url}/dashboard?period=30d`);
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    } finally {
      await context.close();
    }
  });

  test("a link carrying someone's session token (#token=) signs nobody in: the token is dropped from the URL unread", async () => {
    const { context, page } = await open(`/dashboard#token=${sessionToken}`);
    try {
      await expect.poll(() => page.locator('#sign-in [role=status]').textContent()).toBe('You are not signed in.');
      expect(page.url()).toBe(`${url}/dashboard`);
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    } finally {
      await context.close();
    }
  });

  test('sign-in by link: the code leaves the URL, its session token goes to sessionStorage; KPIs and leaderboard equal the API; a period change updates the URL and every number', async () => {
    const link = await memberLink();
    const { context, page } = await open(`/dashboard?period=30d${link}`);
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    try {
      const { report: report30, cards: cards30 } = await reportsFor({ period: '30d' });
      expect(await shownCards(page)).toEqual(cards30);
      expect(page.url()).toBe(`${url}/dashboard?period=30d`);
      const token = await page.evaluate(() => sessionStorage.getItem('partnerkit.dashboard.token'));
      expect(token).toMatch(/^pks_[\w-]{43}$/);
      // The link worked once: it opens nothing now.
      await expect(admin.sessions.exchange(link.slice('#code='.length))).rejects.toMatchObject({ status: 400, code: 'invalid_sign_in_code' });
      expect(await page.locator('#program option').allTextContents()).toEqual(['Demo program (seed 42)', 'Manual program']);
      const partners30 = await member.reports.partners(1, { period: '30d' });
      expect(await leaderboardRows(page)).toEqual(
        partners30.data.map((p, i) => [String(i + 1), `${p.name}#${p.partnerId} · ${p.refCode}`, count(p.clicks), count(p.leads), count(p.conversions), count(p.sales), usd(p.revenue), usd(p.commission), percent(p.conversionRate)]),
      );

      await page.selectOption('#period', '7d');
      await expect.poll(() => page.url()).toBe(`${url}/dashboard?period=7d`);
      await page.locator('figure[data-drawn]').waitFor();
      const { report: report7, cards: cards7 } = await reportsFor({ period: '7d' });
      await expect.poll(() => shownCards(page)).toEqual(cards7);
      expect(report7.metrics.totalClicks).not.toBe(report30.metrics.totalClicks);
      // A tick a day in the browser's locale, both value axes from 0, today (the last day) marked as under way.
      expect(await shownChart(page)).toEqual({ ticks: report7.data.map((d) => shortDay(d.date)), from: '0|0', note: 'Mar 1, 2026, shaded, is still under way.' });

      // Everything since the program began: its previous period had nothing, every trend is new.
      await page.selectOption('#period', 'all');
      const all = await reportsFor({ period: 'all' });
      await expect.poll(() => shownCards(page)).toEqual(all.cards);
      expect(all.cards.totalClicks[1]).toBe('new');

      await page.selectOption('#period', 'custom');
      await page.fill('#period-from', '2026-02-01');
      await page.fill('#period-to', '2026-02-14');
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => page.url()).toBe(`${url}/dashboard?from=2026-02-01&to=2026-02-14`);
      const custom = await reportsFor({ dateFrom: '2026-02-01', dateTo: '2026-02-14' });
      await expect.poll(() => shownCards(page)).toEqual(custom.cards);
      // A range that ended before today has no partial day.
      expect(await shownChart(page)).toEqual({ ticks: custom.report.data.map((d) => shortDay(d.date)), from: '0|0', note: null });
      // The session travels in a header only, the code in the exchange's body: no request names either in its URL.
      expect(requests.filter((r) => r.includes(token!) || r.includes(link.slice('#code='.length)))).toEqual([]);
      expect((page as Page & { errors: string[] }).errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('lists without rows say what to do next instead of showing bare headers', async () => {
    const empty = await admin.programs.create({ name: 'Empty program' });
    await admin.members.add(empty.id, { email: memberEmail });
    const { context, page } = await open(`/dashboard?program=${empty.id}${await memberLink()}`);
    try {
      await expect.poll(() => page.locator('#leaderboard').textContent()).toBe('Partners, by revenueNo partners yet: enroll partners in the program and share their links.');
      await page.goto(`${url}/dashboard/partners?program=${empty.id}`);
      await expect.poll(() => page.locator('#partner-list').textContent()).toBe('PartnersNo partners yet: enroll partners with partnerkit partner enroll, or approve applications below.');
      await page.goto(`${url}/dashboard/payouts?program=${empty.id}`);
      await expect.poll(() => page.locator('#payout-list').textContent()).toBe('PayoutsNo payouts yet: Create payouts pays what is due.');
      await page.goto(`${url}/dashboard/webhooks?program=${empty.id}`);
      await expect.poll(() => page.locator('#webhook-endpoints').textContent()).toBe('No endpoints yet: add your server’s URL above to receive signed events.');
      await page.goto(`${url}/dashboard/commissions?program=${empty.id}`);
      await page.locator('#commission-list').waitFor();
      await page.selectOption('#commission-status', 'reversed');
      await expect.poll(() => page.locator('#commission-list').textContent()).toBe('0 of 0 commissionsNo reversed commissions. Choose another status to see the others.');
      expect(await page.locator('#commission-list').getAttribute('role')).toBe('region');
      expect((page as Page & { errors: string[] }).errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test("CSV downloads: the daily report, the partners report and the commission list equal the CLI's --csv", async () => {
    const { context, page } = await open(`/dashboard?program=1&period=30d${await memberLink()}`);
    const cli = async (args: string[]) => (await runCli(args, cliEnv(dir, { PARTNERKIT_NOW: NOW }))).stdout;
    const downloaded = async (what: string) => {
      const downloading = page.waitForEvent('download');
      await page.getByRole('button', { name: `Download CSV of ${what}` }).click();
      const file = await downloading;
      return [file.suggestedFilename(), readFileSync(await file.path(), 'utf8')];
    };
    try {
      await page.locator('#leaderboard tbody tr').first().waitFor();
      expect(await downloaded('the daily report')).toEqual(['performance-program-1-2026-01-31-2026-03-01.csv', await cli(['report', 'performance', '1', '--period', '30d', '--csv'])]);
      expect(await downloaded('the partners report')).toEqual(['partners-program-1-2026-01-31-2026-03-01.csv', await cli(['report', 'partners', '1', '--period', '30d', '--csv'])]);
      // Every pending commission, not only the page of 20 shown.
      await page.getByRole('link', { name: 'Commissions' }).click();
      await page.locator('#commission-list tbody tr').first().waitFor();
      const [name, file] = await downloaded('the commissions');
      expect([name, file]).toEqual(['commissions-program-1-pending.csv', await cli(['commission', 'list', '--program', '1', '--status', 'pending', '--csv'])]);
      expect(file.trim().split('\n')).toHaveLength(1 + (await member.commissions.page(1, { status: 'pending', limit: 1 })).total);
    } finally {
      await context.close();
    }
  });

  test('the commission list in pages of 20: N of TOTAL, Next from the keyboard shows the next page', async () => {
    const { context, page } = await open(`/dashboard/commissions?program=1${await memberLink()}`);
    try {
      await page.locator('#commission-list').waitFor();
      const first = await member.commissions.page(1, { status: 'pending', limit: 20 });
      expect(first.total).toBeGreaterThan(20);
      const ids = () => page.$$eval('#commission-list tbody tr', (rows) => rows.map((r) => r.querySelector('td')!.textContent));
      expect(await ids()).toEqual(first.data.map((c) => String(c.id)));
      expect(await page.locator('#commissions .pager .count').textContent()).toBe(`1–20 of ${count(first.total)}`);
      const next = await member.commissions.list(1, { status: 'pending', limit: 20, offset: 20 });
      await page.getByRole('button', { name: 'Next 20 commissions' }).focus();
      await page.keyboard.press('Enter');
      await expect.poll(ids).toEqual(next.map((c) => String(c.id)));
      expect(await page.locator('#commissions .pager .count').textContent()).toBe(`21–${20 + next.length} of ${count(first.total)}`);
      expect((page as Page & { errors: string[] }).errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('manual approval: approve a commission, create the payout, download its CSV, mark it paid; the XSS name is text', async () => {
    const { context, page } = await open(`/dashboard?program=${manual.id}${await memberLink()}`);
    try {
      await page.locator('#leaderboard tbody tr').first().waitFor();
      // The partner named like markup is shown as those characters, and nothing ran.
      expect(await page.locator('#leaderboard tbody tr .name').allTextContents()).toContain(XSS);
      await page.getByRole('link', { name: 'Commissions' }).click();
      await page.locator('#commission-list tbody tr').first().waitFor();
      const pending = await member.commissions.list(manual.id, { status: 'pending' });
      expect(pending.map((c) => c.partnerId)).toEqual([manual.alice, manual.alice, manual.xss]);
      expect(await page.$$eval('#commission-list tbody tr', (rows) => rows.map((r) => r.querySelector('td')!.textContent))).toEqual(pending.map((c) => String(c.id)));
      expect(await page.locator('#commission-list').textContent()).toContain(XSS);
      expect(await page.locator('#app img').count()).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();

      const [first, second] = pending;
      await page.getByRole('button', { name: `Approve commission ${first.id}` }).click();
      await expect.poll(() => page.locator('#commissions [role=status]').textContent()).toBe(`Commission ${first.id} approved.`);
      await page.getByRole('button', { name: `Approve commission ${second.id}` }).click();
      await expect.poll(() => page.locator('#commissions [role=status]').textContent()).toBe(`Commission ${second.id} approved.`);
      expect((await member.commissions.list(manual.id, { partnerId: manual.alice })).map((c) => c.status)).toEqual(['approved', 'approved']);
      await expect.poll(() => page.locator('#commission-list tbody tr').count()).toBe(1);

      await page.getByRole('link', { name: 'Payouts' }).click();
      await expect.poll(() => page.locator('#payout-preview tbody tr td').allTextContents()).toEqual([`Alice (#${manual.alice})`, usd(35.05), '2']);
      // Creating payouts asks first, saying how many and how much; dismissed, nothing is created.
      await page.locator('#create-payouts').click();
      const dialog = page.getByRole('dialog');
      expect(await dialog.locator('h2').textContent()).toBe('Create 1 payout?');
      expect(await dialog.locator('p').first().textContent()).toBe(
        `${usd(35.05)} in all, to Alice (#${manual.alice}). Their commissions are then processing until each payout is marked paid or canceled.`,
      );
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect.poll(() => dialog.count()).toBe(0);
      expect(await member.payouts.list(manual.id)).toEqual([]);
      await page.locator('#create-payouts').click();
      await dialog.getByRole('button', { name: 'Create payouts' }).click();
      await expect.poll(() => page.locator('#payouts [role=status]').textContent()).toMatch(/^Batch \d+ created: 1 payout\(s\)\.$/);
      const [payout] = await member.payouts.list(manual.id);
      expect(payout).toMatchObject({ partnerId: manual.alice, amountCents: 3505, status: 'processing' });

      // Alice is paid by PayPal: the batch offers the CSV and a PayPal file, and no Wise file that would hold nothing.
      expect(await page.locator('.export button').allTextContents()).toEqual(['CSV', 'PAYPAL (USD)']);
      const downloading = page.waitForEvent('download');
      await page.getByRole('button', { name: `Download batch ${payout.batchId} as csv` }).click();
      const download = await downloading;
      expect(download.suggestedFilename()).toBe(`payout-batch-${payout.batchId}-csv.csv`);
      const file = readFileSync(await download.path(), 'utf8');
      expect(file).toBe((await member.payouts.export(payout.batchId, { format: 'csv' })).file);
      expect(file).toBe(
        'partner_id,partner_name,payout_email,payout_method,currency,amount,commission_count,payout_id\r\n' +
          `${manual.alice},Alice,alice@pay.example,paypal,USD,35.05,2,${payout.id}\r\n`,
      );

      // Marking paid cannot be undone: it asks, and Escape dismisses it.
      await page.getByRole('button', { name: `Mark paid payout ${payout.id}` }).click();
      expect(await dialog.locator('p').first().textContent()).toBe(`${usd(35.05)} to Alice (#${manual.alice}). This cannot be undone: say so only once the money was sent.`);
      await page.keyboard.press('Escape');
      await expect.poll(() => dialog.count()).toBe(0);
      expect((await member.payouts.get(payout.id)).status).toBe('processing');
      await page.getByRole('button', { name: `Mark paid payout ${payout.id}` }).click();
      await dialog.getByRole('button', { name: 'Mark paid' }).click();
      await expect.poll(() => page.locator('#payouts [role=status]').textContent()).toBe(`Payout ${payout.id} marked paid.`);
      expect((await member.payouts.get(payout.id)).status).toBe('paid');
      expect(await page.locator('#payout-list tbody tr td:nth-child(5)').allTextContents()).toEqual(['paid']);
    } finally {
      await context.close();
    }
  });

  test('groups: added, a partner put in one, its move listed, and a what-if preview of the sales beside what they earned (docs/groups.md)', async () => {
    const program = await manualProgram('Grouped program', 0);
    const dee = await partnerWithSales(program, 'Dee', 'dee@example.com', [2_000, 3_000]);
    const { context, page } = await open(`/dashboard/partners?program=${program.id}${await memberLink()}`);
    try {
      await expect.poll(() => page.locator('#group-list').textContent()).toContain('No groups yet');
      await page.getByLabel('Name', { exact: true }).fill('Gold');
      await page.getByLabel('Sale reward (%)').fill('25');
      await page.getByRole('button', { name: 'Add group' }).click();
      await expect.poll(() => page.locator('#group-list tbody tr td').allTextContents()).toEqual(['Gold (default)', '25 %', '0', '—', '—', '1']);
      const silver = await member.groups.add(program.id, { name: 'Silver', leadRewardCents: 500 });
      await page.reload();
      await page.locator('#group-list tbody tr').nth(1).waitFor();
      await page.selectOption('#group-partner', String(dee));
      await page.selectOption('#group-target', String(silver.id));
      await page.getByRole('button', { name: 'Put in group' }).click();
      await expect.poll(() => page.locator('#groups [role=status]').textContent()).toBe('Dee is in Silver from its next sale on.');
      await expect.poll(() => page.locator('#group-moves tbody tr td').allTextContents()).toEqual([expect.any(String), 'Dee', 'Gold', 'Silver', 'By a member']);

      await page.getByLabel('Percentage').fill('20');
      await page.getByRole('button', { name: 'Preview' }).click();
      await expect.poll(() => page.locator('#what-if-result tbody tr').allTextContents()).toEqual([
        `Dee (#${dee})2${usd(50)}${usd(5)}${usd(10)}`,
        `Total2${usd(50)}${usd(5)}${usd(10)}`,
      ]);
      expect((page as Page & { errors: string[] }).errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('commissions in their hold offer no Approve; several are approved or rejected together after a question, a rejection with its reason', async () => {
    const held = await manualProgram('Held program', 30);
    await partnerWithSales(held, 'Ben', 'ben@example.com', [2_000, 3_000]);
    const quick = await manualProgram('Quick program', 0);
    const cy = await partnerWithSales(quick, 'Cy', 'cy@example.com', [1_000, 1_500]);
    const { context, page } = await open(`/dashboard/commissions?program=${held.id}${await memberLink()}`);
    const dialog = page.getByRole('dialog');
    try {
      await page.locator('#commission-list tbody tr').first().waitFor();
      const [first, second] = await member.commissions.list(held.id, { status: 'pending' });
      // In the hold by the server's clock (30 days from its pinned now), whatever the browser's clock says.
      expect(await page.locator('#commission-list .hold').allTextContents()).toEqual([first, second].map((c) => `in hold until ${new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(c.holdUntil))}`));
      expect(await page.getByRole('button', { name: /^Approve commission/ }).count()).toBe(0);
      await page.getByRole('checkbox', { name: `Select commission ${first.id}` }).check();
      expect(await page.getByRole('button', { name: 'Approve selected' }).isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: 'Reject selected' }).isDisabled()).toBe(false);

      await page.getByRole('button', { name: `Reject commission ${second.id}` }).click();
      expect(await dialog.locator('h2').textContent()).toBe(`Reject commission ${second.id}?`);
      await dialog.getByLabel('Reason (optional, kept with the commission)').fill('Self-referral');
      await dialog.getByRole('button', { name: 'Reject' }).click();
      await expect.poll(() => page.locator('#commissions [role=status]').textContent()).toBe(`Commission ${second.id} rejected.`);
      expect(await member.commissions.list(held.id, { status: 'rejected' })).toEqual([expect.objectContaining({ id: second.id, reason: 'Self-referral' })]);

      await page.selectOption('#program', String(quick.id));
      await page.locator('#commission-list tbody tr').first().waitFor();
      const both = await member.commissions.list(quick.id, { status: 'pending' });
      for (const c of both) await page.getByRole('checkbox', { name: `Select commission ${c.id}` }).check();
      await page.getByRole('button', { name: 'Approve selected' }).click();
      expect(await dialog.locator('h2').textContent()).toBe('Approve 2 commissions?');
      expect(await dialog.locator('p').first().textContent()).toBe(`${usd(2.5)} to Cy (#${cy}). Approved commissions are paid in the next payout.`);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expect((await member.commissions.list(quick.id, { status: 'pending' })).length).toBe(2);
      await page.getByRole('button', { name: 'Approve selected' }).click();
      await dialog.getByRole('button', { name: 'Approve' }).click();
      await expect.poll(() => page.locator('#commissions [role=status]').textContent()).toBe('2 commissions approved.');
      expect((await member.commissions.list(quick.id, { status: 'approved' })).map((c) => c.id)).toEqual(both.map((c) => c.id));
      expect((page as Page & { errors: string[] }).errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('webhooks: add an endpoint (its secret shown once), see its delivery, redeliver it', async () => {
    const hooks = await receiver();
    const { context, page } = await open(`/dashboard/webhooks?program=${manual.id}${await memberLink()}`);
    try {
      await page.locator('#webhooks h2').waitFor();
      await page.locator('#webhook-url').fill(hooks.url);
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await expect.poll(() => page.locator('#webhooks [role=status]').textContent()).toMatch(/^Endpoint \d+ added\. Its signing secret, shown only now: whsec_/);
      const [endpoint] = await member.webhookEndpoints.list(manual.id);
      expect(endpoint.url).toBe(hooks.url);
      const { eventId } = await member.webhookEndpoints.test(endpoint.id);
      await hooks.waitFor(1);
      // The worker records attempts once a second (docs/outbound-webhooks.md#delivery): the log may lag that long.
      await expect.poll(async () => (await member.webhookEndpoints.deliveries(endpoint.id))[0].status, { timeout: 5_000 }).toBe('delivered');

      await page.reload();
      const row = page.locator(`[data-endpoint="${endpoint.id}"] tbody tr`).first();
      await expect.poll(() => row.locator('td').allTextContents()).toEqual([eventId, 'ping', 'delivered', '1', '204', expect.any(String), 'Redeliver']);
      await page.getByRole('button', { name: `Redeliver ${eventId}` }).click();
      await expect.poll(() => page.locator('#webhooks [role=status]').textContent()).toBe(`Event ${eventId} queued again for endpoint ${endpoint.id}.`);
      await hooks.waitFor(2);
      expect(hooks.received.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId]);
    } finally {
      await context.close();
    }
  });

  test('sign-out: the server refuses the session after it, the page shows the sign-in message', async () => {
    const { context, page } = await open(`/dashboard${await memberLink()}`);
    try {
      await page.locator('figure[data-drawn]').waitFor();
      const token = await page.evaluate(() => sessionStorage.getItem('partnerkit.dashboard.token'));
      await page.locator('#sign-out').click();
      await expect.poll(() => page.locator('#sign-in [role=status]').textContent()).toBe('You are signed out.');
      const refused = await fetch(`${url}/api/me`, { headers: { authorization: `Bearer ${token}` } });
      expect(refused.status).toBe(401);
    } finally {
      await context.close();
    }
  });
});

/** The right edges of a list's cells of the given column labels are within the screen's width (rows are cards on a phone). */
async function expectKeyFiguresInView(page: Page, list: string, labels: string[], width: number): Promise<void> {
  await page.locator(`${list} td`).first().waitFor();
  const edges = await page.$$eval(`${list} td`, (cells, wanted) => cells.filter((c) => wanted.includes(c.dataset.label!)).map((c) => c.getBoundingClientRect().right), labels);
  expect(edges.length, list).toBeGreaterThanOrEqual(labels.length);
  expect(Math.max(...edges), list).toBeLessThanOrEqual(width);
}

/** Presses Tab until the focused element's text or label is `name` (at most 80 times); fails otherwise. */
async function tabTo(page: Page, name: string | RegExp): Promise<void> {
  for (let i = 0; i < 80; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const e = document.activeElement as HTMLElement | null;
      return e ? (e.getAttribute('aria-label') ?? (e as HTMLInputElement).labels?.[0]?.textContent ?? e.textContent ?? '').trim() : '';
    });
    if (typeof name === 'string' ? focused === name : name.test(focused)) return;
  }
  throw new Error(`Tab never reached ${name}`);
}

/** Each section, at its URL, with a list whose rows carry its key figures and a mark that it is drawn. */
const SECTIONS: Array<{ path: string; drawn: string; keys?: [string, string[]] }> = [
  { path: 'overview', drawn: 'figure[data-drawn]', keys: ['#leaderboard', ['Partner', 'Revenue', 'Commission']] },
  { path: 'partners', drawn: '#partner-list tbody tr', keys: ['#partner-list', ['Partner', 'Status']] },
  { path: 'partners/1', drawn: '#partner-commissions tbody tr', keys: ['#commission-list', ['Amount', 'Status']] },
  { path: 'commissions', drawn: '#commission-list tbody tr', keys: ['#commission-list', ['Amount', 'Status', 'Review']] },
  { path: 'payouts', drawn: '#payout-preview' },
  { path: 'webhooks', drawn: '#webhook-endpoints' },
  { path: 'settings', drawn: '#keys-table tbody tr', keys: ['#keys-table', ['Begins with', 'Status']] },
];

describe('the dashboard sections', () => {
  const stored = (): [string, string] => ['partnerkit.dashboard.token', sessionToken];

  test('each section has its URL: links move without a reload and keep the program and period, back and forward restore, a deep link opens its section', async () => {
    const { context, page } = await open(`/dashboard/partners?program=1&period=30d${await memberLink()}`);
    try {
      await page.locator('#partner-list tbody tr').first().waitFor();
      expect(await page.locator('nav.sections [aria-current=page]').textContent()).toBe('Partners');
      expect(await page.locator('nav.sections a').allTextContents()).toEqual(['Overview', 'Partners', 'Commissions', 'Payouts', 'Webhooks', 'Settings']);
      const partners = await member.programPartners.list(1);
      expect(await page.$$eval('#partner-list tbody tr .name', (names) => names.map((n) => n.textContent))).toEqual(partners.map((p) => p.name));
      // A mark on the window survives moves inside the page, and only those.
      await page.evaluate(() => Object.assign(window, { __samePage: true }));
      await page.selectOption('#period', '7d');
      await expect.poll(() => page.url()).toBe(`${url}/dashboard/partners?program=1&period=7d`);
      await page.getByRole('link', { name: 'Payouts' }).click();
      await expect.poll(() => page.url()).toBe(`${url}/dashboard/payouts?program=1&period=7d`);
      await page.locator('#payout-preview').waitFor();
      expect(await page.locator('nav.sections [aria-current=page]').textContent()).toBe('Payouts');
      expect(await page.title()).toBe('Payouts · Demo program (seed 42) · partnerkit dashboard');
      // Payouts do not depend on the period: no picker, but its links keep it.
      expect(await page.locator('#period').count()).toBe(0);
      await page.goBack();
      await expect.poll(() => page.url()).toBe(`${url}/dashboard/partners?program=1&period=7d`);
      await page.goBack();
      await expect.poll(() => page.url()).toBe(`${url}/dashboard/partners?program=1&period=30d`);
      await expect.poll(() => page.locator('#period').inputValue()).toBe('30d');
      await page.locator('#partner-list tbody tr').first().waitFor();
      await page.goForward();
      await page.goForward();
      await page.locator('#payout-preview').waitFor();
      expect(await page.evaluate(() => (window as unknown as { __samePage?: boolean }).__samePage)).toBe(true);

      // A deep link (the session is the tab's) opens its section and program.
      await page.goto(`${url}/dashboard/settings?program=${manual.id}`);
      await expect.poll(() => page.locator('#setting-name').inputValue()).toBe('Manual program');
      expect(await page.locator('nav.sections [aria-current=page]').textContent()).toBe('Settings');
      // An unknown section is the Overview.
      await page.goto(`${url}/dashboard/nowhere?program=1`);
      await page.locator('figure[data-drawn]').waitFor();
      expect(await page.locator('nav.sections [aria-current=page]').textContent()).toBe('Overview');
      expect((page as Page & { errors: string[] }).errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test("partner search through the API, and a partner's page: links, the period's numbers, commissions and history", async () => {
    const { context, page } = await open(`/dashboard/partners?program=${manual.id}&period=30d`, 1280, stored());
    try {
      await page.locator('#partner-list tbody tr').first().waitFor();
      await page.fill('#partner-search', 'ALICE@');
      await page.getByRole('button', { name: 'Search' }).click();
      await expect.poll(() => page.url()).toBe(`${url}/dashboard/partners?program=${manual.id}&period=30d&q=ALICE%40`);
      await expect.poll(() => page.$$eval('#partner-list tbody tr .name', (n) => n.map((e) => e.textContent))).toEqual(['Alice']);
      await page.fill('#partner-search', 'nobody-here');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator('#partner-list').textContent()).toBe('Partners whose name or e-mail contains “nobody-here”No partner’s name or e-mail contains “nobody-here”. Search for part of a name or an address.');
      await page.goBack();
      await page.getByRole('link', { name: 'Alice' }).click();
      await expect.poll(() => page.url()).toBe(`${url}/dashboard/partners/${manual.alice}?program=${manual.id}&period=30d`);
      await expect.poll(() => page.locator('#partner-name').textContent()).toBe('Alice');
      const links = await member.programPartners.links(manual.id, manual.alice);
      expect(await page.locator('#partner-links code').allTextContents()).toEqual([`${url}/r/${links.refCode}`]);
      const row = (await member.reports.partners(manual.id, { period: '30d' })).data.find((p) => p.partnerId === manual.alice)!;
      expect(await page.$$eval('#partner-numbers .kpi', (cards) => cards.map((c) => [c.querySelector('h4')!.textContent, c.querySelector('.value')!.textContent]))).toEqual([
        ['Clicks', count(row.clicks)], ['Leads', count(row.leads)], ['Conversions', count(row.conversions)], ['Sales', count(row.sales)],
        ['Revenue', usd(row.revenue)], ['Commission', usd(row.commission)], ['Conversion rate', percent(row.conversionRate)],
      ]);
      await page.locator('#partner-commissions tbody tr').first().waitFor();
      const commissions = await member.commissions.list(manual.id, { partnerId: manual.alice });
      expect(await page.$$eval('#partner-commissions tbody tr', (rows) => rows.map((r) => r.querySelector('td')!.textContent))).toEqual(commissions.map((c) => String(c.id)));
      expect(await page.locator('#partner-history tbody tr td:nth-child(2)').allTextContents()).toContain(`Enrolled with referral code ${links.refCode}`);
      // A partner who is not enrolled: a sentence and the way back.
      await page.goto(`${url}/dashboard/partners/99999?program=${manual.id}`);
      await expect.poll(() => page.locator('#section-partners [role=status]').textContent()).toBe('No partner 99999 is enrolled in this program.');
      expect((page as Page & { errors: string[] }).errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('settings: a key shown once and retired after a question, a member added, a fraud rule changed, a setting saved', async () => {
    const program = await manualProgram('Settings program', 0);
    const { context, page } = await open(`/dashboard/settings?program=${program.id}`, 1280, stored());
    const dialog = page.getByRole('dialog');
    try {
      await page.locator('#keys-table tbody tr').first().waitFor();
      await page.getByRole('button', { name: 'Create live key' }).click();
      await expect.poll(() => page.locator('#api-keys [role=status]').textContent()).toMatch(/^Key \d+ created\. Copy it now, it is shown only once: pk_live_/);
      const key = (await page.locator('#new-key').textContent())!;
      const created = (await admin.keys.list(program.id)).at(-1)!;
      expect([created.status, key.startsWith(created.prefix)]).toEqual(['active', true]);
      // The list shows its first characters only.
      expect(await page.locator('#keys-table').textContent()).not.toContain(key);
      await page.getByRole('button', { name: `Retire key ${created.id}` }).click();
      expect(await dialog.locator('h2').textContent()).toBe(`Retire key ${created.prefix}…?`);
      await page.keyboard.press('Escape');
      await expect.poll(() => dialog.count()).toBe(0);
      expect((await admin.keys.list(program.id)).at(-1)!.status).toBe('active');
      await page.getByRole('button', { name: `Retire key ${created.id}` }).click();
      await dialog.getByRole('button', { name: 'Retire' }).click();
      await expect.poll(() => page.locator('#api-keys [role=status]').textContent()).toBe(`Key ${created.prefix}… retired.`);
      expect((await admin.keys.list(program.id)).at(-1)!.status).toBe('retired');
      const refused = await new PartnerkitClient({ baseUrl: url, apiKey: key }).trackClick({ ref: 'nobody' }).catch((error) => error.status);
      expect(refused).toBe(401);

      await page.fill('#member-email', 'Colleague@Example.com');
      await page.getByRole('button', { name: 'Add member' }).click();
      await expect.poll(() => page.locator('#members [role=status]').textContent()).toBe('colleague@example.com added: they sign in with a link sent to that address.');
      await expect.poll(() => page.locator('#members-table tbody tr td:first-child').allTextContents()).toEqual(['colleague@example.com', memberEmail]);

      await page.selectOption('#fraud-refundRate', 'hold');
      await expect.poll(() => page.locator('#fraud-rules [role=status]').textContent()).toBe('High refund rate: hold for review.');
      expect((await admin.programs.get(program.id)).fraudRules.refundRate).toBe('hold');

      await page.fill('#setting-hold', '14');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await expect.poll(() => page.locator('#program-settings [role=status]').textContent()).toBe('Settings saved: new sales and commissions follow them.');
      expect((await admin.programs.get(program.id)).holdDays).toBe(14);
      expect((page as Page & { errors: string[] }).errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('a held commission is rejected from the review queue only after a question, with its reason', async () => {
    const program = await manualProgram('Review program', 0);
    const partner = await partnerWithSales(program, 'Self', 'self@example.com', [5_000]);
    // The customer is the partner: the self-referral rule holds the commission.
    const tracker = new PartnerkitClient({ baseUrl: url, apiKey: program.apiKey });
    const { refCode } = await admin.partners.links(program.id, partner);
    const { clickId } = await tracker.trackClick({ ref: refCode, ip: '10.0.9.9' });
    await tracker.trackLead({ customerExternalId: 'self', clickId, email: 'self@example.com' });
    await tracker.trackSale({ customerExternalId: 'self', amount: 7_000, invoiceId: 'self-in' });
    const [held] = await member.fraud.events(program.id);
    const { context, page } = await open(`/dashboard/commissions?program=${program.id}`, 1280, stored());
    const dialog = page.getByRole('dialog');
    try {
      await page.getByRole('button', { name: `Reject held commission ${held.commissionId}` }).click();
      expect(await dialog.locator('h2').textContent()).toBe(`Reject commission ${held.commissionId}?`);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect.poll(() => dialog.count()).toBe(0);
      expect(await member.commissions.list(program.id, { status: 'rejected' })).toEqual([]);
      await page.getByRole('button', { name: `Reject held commission ${held.commissionId}` }).click();
      await dialog.getByLabel('Reason (optional, kept with the commission)').fill('Bought through their own link');
      await dialog.getByRole('button', { name: 'Reject' }).click();
      await expect.poll(() => page.locator('#review [role=status]').textContent()).toBe(`Commission ${held.commissionId} rejected.`);
      expect(await member.commissions.list(program.id, { status: 'rejected' })).toEqual([expect.objectContaining({ id: held.commissionId, reason: 'Bought through their own link' })]);
    } finally {
      await context.close();
    }
  });

  test('from the keyboard alone: the navigation, a section, its main action and its question', async () => {
    const program = await manualProgram('Keyboard program', 0);
    const ann = await partnerWithSales(program, 'Ann', 'ann@example.com', [1_000, 2_000]);
    const { context, page } = await open(`/dashboard?program=${program.id}`, 1280, stored());
    try {
      await page.locator('figure[data-drawn]').waitFor();
      await tabTo(page, 'Commissions');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.url()).toBe(`${url}/dashboard/commissions?program=${program.id}`);
      const pending = await member.commissions.list(program.id, { status: 'pending' });
      await page.locator('#commission-list tbody tr').first().waitFor();
      for (const c of pending) {
        await tabTo(page, `Select commission ${c.id}`);
        await page.keyboard.press('Space');
      }
      await tabTo(page, 'Approve selected');
      await page.keyboard.press('Enter');
      // The question's first button, its action, has the focus.
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Approve');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator('#commissions [role=status]').textContent()).toBe('2 commissions approved.');

      for (const [section, action] of [['Partners', 'Search'], ['Payouts', 'Create payouts'], ['Webhooks', 'Add endpoint'], ['Settings', 'Create live key']]) {
        await tabTo(page, section);
        await page.keyboard.press('Enter');
        await expect.poll(() => page.locator('nav.sections [aria-current=page]').textContent()).toBe(section);
        await tabTo(page, action);
      }
      // Settings: a key created and retired, the question answered from the keyboard.
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator('#new-key').count()).toBe(1);
      const created = (await admin.keys.list(program.id)).at(-1)!;
      await tabTo(page, `Retire key ${created.id}`);
      await page.keyboard.press('Space');
      await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Retire');
      await page.keyboard.press('Enter');
      await expect.poll(async () => (await admin.keys.list(program.id)).at(-1)!.status).toBe('retired');
      // Payouts from the keyboard: the question of Create payouts.
      await tabTo(page, 'Payouts');
      await page.keyboard.press('Enter');
      await tabTo(page, 'Create payouts');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Enter');
      await expect.poll(async () => (await member.payouts.list(program.id)).map((p) => p.partnerId)).toEqual([ann]);
    } finally {
      await context.close();
    }
  });

  test('from the keyboard alone: a partner searched for and opened, back to the list; a webhook endpoint added with Enter and its delivery redelivered', async () => {
    const program = await manualProgram('Keyboard search program', 0);
    const bea = await partnerWithSales(program, 'Bea', 'bea@example.com', [1_000]);
    await partnerWithSales(program, 'Carl', 'carl@example.com', [2_000]);
    const hooks = await receiver();
    const { context, page } = await open(`/dashboard/partners?program=${program.id}`, 1280, stored());
    const names = () => page.$$eval('#partner-list tbody tr .name', (n) => n.map((e) => e.textContent));
    try {
      await expect.poll(names).toEqual(['Bea', 'Carl']);
      await tabTo(page, 'Name or e-mail');
      await page.keyboard.type('BEA@');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.url()).toBe(`${url}/dashboard/partners?program=${program.id}&q=BEA%40`);
      await expect.poll(names).toEqual(['Bea']);
      await tabTo(page, 'Bea');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.url()).toBe(`${url}/dashboard/partners/${bea}?program=${program.id}`);
      await expect.poll(() => page.locator('#partner-name').textContent()).toBe('Bea');
      await page.goBack();
      await expect.poll(() => page.url()).toBe(`${url}/dashboard/partners?program=${program.id}&q=BEA%40`);
      await expect.poll(names).toEqual(['Bea']);

      await tabTo(page, 'Webhooks');
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator('#webhook-endpoints').textContent()).toBe('No endpoints yet: add your server’s URL above to receive signed events.');
      await tabTo(page, 'Endpoint URL');
      await page.keyboard.type(hooks.url);
      await page.keyboard.press('Enter');
      await expect.poll(async () => (await member.webhookEndpoints.list(program.id)).map((e) => e.url)).toEqual([hooks.url]);
      const [endpoint] = await member.webhookEndpoints.list(program.id);
      const added = page.locator('#webhooks [role=status]');
      await expect.poll(() => added.textContent()).toMatch(new RegExp(`^Endpoint ${endpoint.id} added\\. Its signing secret, shown only now: whsec_\\S+$`));
      const secret = await added.locator('code').textContent();
      expect(await page.locator('#webhook-url').inputValue()).toBe('');
      // No button sends a test event from the section: the API does, the section shows its delivery.
      const { eventId } = await member.webhookEndpoints.test(endpoint.id);
      await hooks.waitFor(1);
      // The worker records attempts once a second (docs/outbound-webhooks.md#delivery): the log may lag that long.
      await expect.poll(async () => (await member.webhookEndpoints.deliveries(endpoint.id))[0].status, { timeout: 5_000 }).toBe('delivered');
      await page.reload();
      const row = page.locator(`[data-endpoint="${endpoint.id}"] tbody tr`);
      await expect.poll(() => row.first().locator('td').allTextContents()).toEqual([eventId, 'ping', 'delivered', '1', '204', expect.any(String), 'Redeliver']);
      expect(await row.count()).toBe(1);
      expect(await page.locator('#webhooks').textContent()).not.toContain(secret);
      await tabTo(page, `Redeliver ${eventId}`);
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator('#webhooks [role=status]').textContent()).toBe(`Event ${eventId} queued again for endpoint ${endpoint.id}.`);
      await hooks.waitFor(2);
      expect(hooks.received.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId]);
      expect((page as Page & { errors: string[] }).errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test.each([1280, 390])('every section at %i px: nothing wider than the screen, key figures in view, no serious or critical axe violation (UPDATE_SCREENSHOTS=1 writes docs/screenshots/)', async (width) => {
    const { context, page } = await open(`/dashboard?program=1&period=30d`, width, stored(), true);
    try {
      for (const section of SECTIONS) {
        await page.goto(`${url}/dashboard/${section.path}?program=1&period=30d`);
        await page.locator(section.drawn).first().waitFor();
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), section.path).toBe(true);
        if (section.keys) await expectKeyFiguresInView(page, section.keys[0], section.keys[1], width);
        expect(await axeViolations(page), section.path).toEqual([]);
        await screenshot(page, `section-${section.path.replace('/', '-')}-${width}`);
      }
    } finally {
      await context.close();
    }
  });
});

/** A partner portal session for the test's own calls, and the fragment of its sign-in link as `partner login` prints it. */
async function partnerSession(partnerId: number): Promise<{ token: string; link: string }> {
  const { token, signInCode } = await admin.partners.createSession(partnerId);
  return { token, link: `#code=${signInCode}` };
}

describe('the partner portal', () => {
  test("a partner sees its program, links, totals and only its own commissions; the copy button copies the link", async () => {
    const { token, link } = await partnerSession(manual.xss);
    const { context, page } = await open(`/portal?period=30d${link}`);
    try {
      await page.locator('figure[data-drawn]').waitFor();
      expect(page.url()).toBe(`${url}/portal?period=30d`);
      expect(await page.locator('.program h2').allTextContents()).toEqual(['Manual program']);
      expect(await page.locator('.who').textContent()).toBe(`${XSS} (xss@example.com)`);
      const api = async <T>(path: string) => (await fetch(`${url}/api/portal${path}`, { headers: { authorization: `Bearer ${token}` } })).json() as Promise<T>;
      const me = await api<PortalMe>('/me');
      expect(await page.locator('.link code').first().textContent()).toBe(me.programs[0].link);
      await page.getByRole('button', { name: 'Copy partner link' }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(me.programs[0].link);

      const performance = await api<PortalPerformance>(`/programs/${manual.id}/performance?period=30d`);
      const totals = performance.data.totals;
      expect(await page.$$eval('.kpi', (cards) => cards.map((c) => c.querySelector('.value')!.textContent))).toEqual([
        count(totals.clicks), count(totals.leads), count(totals.conversions), count(totals.sales), usd(totals.revenue), usd(totals.commission),
      ]);
      expect(totals).toMatchObject({ clicks: 1, conversions: 1, sales: 1, revenue: 49.99 });
      // Its one commission only: Alice's two are not there.
      const commissions = await api<PortalCommissions>(`/programs/${manual.id}/commissions`);
      expect(commissions.data).toHaveLength(1);
      expect(await page.$$eval('.commissions tbody tr', (rows) => rows.map((r) => r.querySelector('td')!.textContent))).toEqual([String(commissions.data[0].id)]);
      expect(await page.locator('.payouts tbody tr').count()).toBe(0);
      expect(await page.locator('#app img').count()).toBe(0);
      expect((page as Page & { errors: string[] }).errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('Alice sees her payout; a member session on the portal gets the sign-in message', async () => {
    const { context, page } = await open(`/portal${(await partnerSession(manual.alice)).link}`);
    try {
      await page.locator('figure[data-drawn]').waitFor();
      expect(await page.locator('.commissions tbody tr').count()).toBe(2);
      expect(await page.locator('.payouts tbody tr td').allTextContents()).toEqual([expect.any(String), usd(35.05), '2', 'paid', expect.any(String), expect.any(String)]);
    } finally {
      await context.close();
    }
    // A member's dashboard link opened on the portal: its session is not a partner's.
    const wrong = await open(`/portal${await memberLink()}`);
    try {
      await expect.poll(() => wrong.page.locator('#sign-in').count()).toBe(1);
    } finally {
      await wrong.context.close();
    }
  });
});

describe('screenshots', () => {
  test.each([1280, 375])('axe-core finds no serious or critical violation on either page at %i px', async (width) => {
    const pages = [
      ['dashboard', `/dashboard?period=30d&program=${manual.id}${await memberLink()}`],
      ['portal', `/portal?period=30d${(await partnerSession(manual.alice)).link}`],
    ];
    for (const [name, path] of pages) {
      const { context, page } = await open(path, width, undefined, true);
      try {
        await page.locator('figure[data-drawn]').first().waitFor();
        expect(await axeViolations(page), name).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });

  test.each([1280, 375])('both pages at %i px wide fit the width (UPDATE_SCREENSHOTS=1 writes docs/screenshots/)', async (width) => {
    const pages = [
      ['dashboard', `/dashboard?period=90d${await memberLink()}`],
      ['portal', `/portal?period=30d${(await partnerSession(manual.alice)).link}`],
    ];
    for (const [name, path] of pages) {
      const { context, page } = await open(path, width);
      try {
        await page.locator('figure[data-drawn]').first().waitFor();
        // Nothing is wider than the screen.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(width);
        // Each row's key figures are on screen without scrolling sideways: on a phone the rows are cards.
        if (name === 'dashboard') await expectKeyFiguresInView(page, '#leaderboard', ['Partner', 'Revenue', 'Commission'], width);
        // The dashboard's screenshots are its sections' (below).
        if (name === 'portal') await screenshot(page, `${name}-${width}`);
      } finally {
        await context.close();
      }
    }
  });
});
