import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildTestApp, type ProgramFixture, type TestApp } from '../helpers/app.js';

/**
 * The tracking script in a real browser (docs/tracking.md#the-tracking-script-get-pkjsprogramprogramid): Debian's headless Chromium,
 * driven by playwright-core (never a downloaded browser), opens a merchant's page on one origin
 * that loads pk.js from partnerkit on another, so the click is posted cross-origin as on a real
 * site. Unique clicks are off, so every click the server stores is one the script asked for.
 */
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const DAY_SECONDS = 86_400;

let browser: Browser;
let merchant: Server;
let merchantOrigin: string;
/** The script tag's src the merchant's pages carry: the partnerkit of the running test. */
let scriptSrc = '';

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  // The merchant's site: every path is a page with the one script tag.
  merchant = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><html><head><title>Shop</title><script async src="${scriptSrc}"></script></head><body>${request.url}</body></html>`);
  });
  await new Promise<void>((listening) => merchant.listen(0, '127.0.0.1', listening));
  merchantOrigin = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((closed) => merchant?.close(closed));
});

/** partnerkit listening on 127.0.0.1 (another port: another origin) with a program whose landing page is the merchant's. */
async function partnerkit(windowDays = 90): Promise<{ t: TestApp; program: ProgramFixture; origin: string }> {
  const t = await buildTestApp({ clicks: { dedupMinutes: 0 } });
  const program = await t.program({ landingUrl: `${merchantOrigin}/landing`, attributionWindowDays: windowDays });
  const origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  scriptSrc = `${origin}/pk.js?program=${program.id}`;
  return { t, program, origin };
}

/** A visitor of their own: a fresh browser profile with its own User-Agent, closed after the test. */
async function visitor(name: string): Promise<{ context: BrowserContext; page: Page; clickPosts: () => number }> {
  const context = await browser.newContext({ userAgent: `partnerkit-test ${name}` });
  const page = await context.newPage();
  let posts = 0;
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/api/v1/track/click')) posts++;
  });
  return { context, page, clickPosts: () => posts };
}

/** Opens a URL and waits until the script has settled; the click id it resolved with. */
async function visit(page: Page, url: string): Promise<string | null> {
  await page.goto(url);
  return page.evaluate(async () => {
    while (!('partnerkit' in window)) await new Promise((r) => setTimeout(r, 10));
    return (window as unknown as { partnerkit: { ready: Promise<string | null> } }).partnerkit.ready;
  });
}

const clickIdOnPage = (page: Page) => page.evaluate(() => (window as unknown as { partnerkit: { clickId(): string | null } }).partnerkit.clickId());

async function cookieOf(context: BrowserContext) {
  return (await context.cookies(merchantOrigin)).find((c) => c.name === 'partner_click_id');
}

const storedClickIds = async (t: TestApp) =>
  (await t.store.read((sql) => sql.all<{ click_id: string }>('SELECT click_id FROM clicks ORDER BY id'))).map((c) => c.click_id);

describe('pk.js in Chromium', () => {
  test('?via=<ref>: one click recorded cross-origin, kept in the first-party cookie; a reload and a visit without a ref keep it; clickId() returns it; a lead with it is the partner’s', async () => {
    const { t, program } = await partnerkit();
    const { context, page, clickPosts } = await visitor('via');
    try {
      const clickId = await visit(page, `${merchantOrigin}/landing?via=${program.refCode}`);
      expect(clickId).toMatch(/^ck_1_[\w-]{22}$/);
      expect(await storedClickIds(t)).toEqual([clickId]);
      const stored = await t.store.read((sql) => sql.one<{ landing_url: string; partner_program_id: number }>('SELECT landing_url, partner_program_id FROM clicks'));
      expect(stored).toEqual({ landing_url: `${merchantOrigin}/landing?via=${program.refCode}`, partner_program_id: program.partnerProgramId });

      const cookie = (await cookieOf(context))!;
      expect(cookie).toMatchObject({ value: clickId, path: '/', sameSite: 'Lax', secure: false, httpOnly: false });
      // The program's 90-day attribution window, from the browser's own clock.
      expect(cookie.expires - Date.now() / 1000).toBeGreaterThan(90 * DAY_SECONDS - 120);
      expect(cookie.expires - Date.now() / 1000).toBeLessThanOrEqual(90 * DAY_SECONDS);
      expect(await clickIdOnPage(page)).toBe(clickId);

      await page.reload();
      expect(await page.evaluate(() => (window as unknown as { partnerkit: { ready: Promise<string> } }).partnerkit.ready)).toBe(clickId);
      expect(await visit(page, `${merchantOrigin}/pricing`)).toBe(clickId);
      expect(await clickIdOnPage(page)).toBe(clickId);
      expect((await cookieOf(context))!.value).toBe(clickId);
      expect(clickPosts()).toBe(1);
      expect(await storedClickIds(t)).toEqual([clickId]);

      const lead = await t.post('/api/v1/track/lead', { customer_key: 'user_42', click_id: clickId }, program.apiKey);
      expect(lead.json()).toEqual({ success: true, customer_id: 1, message: 'Lead tracked' });
      const customer = await t.store.read((sql) => sql.one<{ partner_program_id: number }>('SELECT partner_program_id FROM customers'));
      expect(customer!.partner_program_id).toBe(program.partnerProgramId);
    } finally {
      await context.close();
    }
  });

  test('through /r/<ref>: the redirect brings the click id, the script keeps it without posting another click; a reload records nothing', async () => {
    const { t, program, origin } = await partnerkit(30);
    const { context, page, clickPosts } = await visitor('link');
    try {
      const clickId = await visit(page, `${origin}/r/${program.refCode}`);
      expect(page.url()).toBe(`${merchantOrigin}/landing?partner_click_id=${clickId}`);
      expect(await storedClickIds(t)).toEqual([clickId]);
      const cookie = (await cookieOf(context))!;
      expect(cookie.value).toBe(clickId);
      expect(cookie.expires - Date.now() / 1000).toBeGreaterThan(30 * DAY_SECONDS - 120);
      expect(cookie.expires - Date.now() / 1000).toBeLessThanOrEqual(30 * DAY_SECONDS);

      await page.reload();
      expect(await clickIdOnPage(page)).toBe(clickId);
      expect(clickPosts()).toBe(0);
      expect(await storedClickIds(t)).toEqual([clickId]);
    } finally {
      await context.close();
    }
  });

  test("another partner's link replaces the cookie; its ?via= does too", async () => {
    const { t, program, origin } = await partnerkit();
    const second = await t.enroll(program.id, (await t.partner({ name: 'Second' })).id);
    const third = await t.enroll(program.id, (await t.partner({ name: 'Third' })).id);
    const { context, page } = await visitor('switch');
    try {
      const first = await visit(page, `${merchantOrigin}/landing?via=${program.refCode}`);
      const viaLink = await visit(page, `${origin}/r/${second.refCode}`);
      expect(viaLink).not.toBe(first);
      expect((await cookieOf(context))!.value).toBe(viaLink);
      const viaRef = await visit(page, `${merchantOrigin}/landing?via=${third.refCode}`);
      expect((await cookieOf(context))!.value).toBe(viaRef);
      expect(await storedClickIds(t)).toEqual([first, viaLink, viaRef]);
    } finally {
      await context.close();
    }
  });

  test('an unknown ref records nothing and keeps the cookie there is', async () => {
    const { t, program } = await partnerkit();
    const { context, page } = await visitor('unknown');
    try {
      const clickId = await visit(page, `${merchantOrigin}/landing?via=${program.refCode}`);
      expect(await visit(page, `${merchantOrigin}/landing?via=nope`)).toBe(clickId);
      expect(await visit(page, `${merchantOrigin}/landing?partner_click_id=not-a-click-id`)).toBe(clickId);
      expect(await storedClickIds(t)).toEqual([clickId]);
    } finally {
      await context.close();
    }
  });
});
