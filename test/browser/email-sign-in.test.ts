import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cliEnv, runJson, startServe, tempDataDir } from '../helpers/cli.js';
import { MAIL_FROM, smtpCatcher } from '../helpers/smtp.js';

/**
 * Sign-in by e-mail (docs/mail.md#sign-in-by-e-mail) and the application page
 * (docs/applications.md#the-application-page) end to end: a real `serve` mailing through a real
 * SMTP server on 127.0.0.1, and Debian's headless Chromium filling the forms and opening the links
 * from the mails.
 */
const CHROMIUM = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
}, 60_000);
afterAll(() => browser?.close());

describe('sign-in by e-mail in Chromium', () => {
  test('a member signs in to the dashboard and a partner to the portal with the links they were mailed', async () => {
    const smtp = await smtpCatcher();
    try {
      const dir = tempDataDir();
      const env = cliEnv(dir);
      const program = await runJson(['program', 'create', '--name', 'Acme partners', '--landing-url', 'https://shop.example/'], env);
      await runJson(['member', 'add', '--program', String(program.id), '--email', 'ana@example.com'], env);
      const partner = await runJson(['partner', 'create', '--name', 'Pat Doe', '--email', 'pat@example.com'], env);
      await runJson(['partner', 'enroll', '--program', String(program.id), '--partner', String(partner.id)], env);
      const serve = await startServe(dir, [], { PARTNERKIT_SMTP_URL: smtp.url, PARTNERKIT_MAIL_FROM: MAIL_FROM });
      const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });

      /** Asks for a link on the page, then opens the mailed link in a new tab, as from a mail client. */
      const signIn = async (path: string, email: string, n: number) => {
        const page = await context.newPage();
        await page.goto(`${serve.url}${path}`);
        await page.getByLabel('Your e-mail address').fill(email);
        await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
        await expect.poll(() => page.locator('#email-link-status').textContent()).toContain('a sign-in link is on its way');
        const mail = (await smtp.waitFor(n))[n - 1];
        expect(mail.envelope.to).toEqual([email]);
        const link = /https?:\/\/\S+#code=pkc_\S+/.exec(mail.text!)![0];
        expect(link.startsWith(`${serve.url}${path}#code=`)).toBe(true);
        const opened = await context.newPage();
        await opened.goto(link);
        return opened;
      };

      const dashboard = await signIn('/dashboard', 'ana@example.com', 1);
      await expect.poll(() => dashboard.locator('header.top h1').textContent()).toBe('partnerkit dashboard');
      await expect.poll(() => dashboard.locator('.who').textContent()).toBe('ana@example.com');
      expect(dashboard.url()).toBe(`${serve.url}/dashboard`);

      const portal = await signIn('/portal', 'pat@example.com', 2);
      await expect.poll(() => portal.locator('#sign-out').count()).toBe(1);
      await expect.poll(() => portal.locator('main').textContent()).toContain('Acme partners');

      // The same link again: refused, with the way to a new one.
      const used = /https?:\/\/\S+#code=pkc_\S+/.exec(smtp.mails[1].text!)![0];
      const again = await context.newPage();
      await again.goto(used);
      await expect.poll(() => again.locator('#sign-in').textContent()).toContain('has expired or has already been used');
      await expect.poll(() => again.getByLabel('Your e-mail address').count()).toBe(1);
      await context.close();
    } finally {
      await smtp.stop();
    }
  }, 60_000);

  test('a would-be partner applies on /apply/:programId, is approved from the CLI, and gets the link by mail', async () => {
    const smtp = await smtpCatcher();
    try {
      const dir = tempDataDir();
      const env = cliEnv(dir);
      const program = await runJson(['program', 'create', '--name', 'Acme partners', '--landing-url', 'https://shop.example/'], env);
      const serve = await startServe(dir, [], { PARTNERKIT_SMTP_URL: smtp.url, PARTNERKIT_MAIL_FROM: MAIL_FROM });
      const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });
      const page = await context.newPage();
      await page.goto(`${serve.url}/apply/${program.id}`);
      await expect.poll(() => page.locator('h1').textContent()).toBe('Apply to Acme partners');
      await page.getByLabel('Your name').fill('Pat Doe');
      await page.getByLabel('Your e-mail address').fill('pat@example.com');
      await page.getByLabel('Your website (optional)').fill('ftp://pat.example');
      // The browser's own check lets an ftp URL through: the API's 400 names the field.
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => page.locator('#apply-status').textContent()).toContain('website');
      await page.getByLabel('Your website (optional)').fill('https://pat.example');
      await page.getByLabel('A message (optional)').fill('I review tools.');
      await page.getByRole('button', { name: 'Apply' }).click();
      await expect.poll(() => page.locator('.done').textContent()).toBe('Thank you: your application was received. You will hear from us by e-mail.');

      const pending = await runJson(['partner', 'applications', '--program', String(program.id), '--status', 'pending'], env);
      expect(pending).toMatchObject([{ name: 'Pat Doe', email: 'pat@example.com', website: 'https://pat.example', message: 'I review tools.' }]);
      const approved = await runJson(['partner', 'approve', '--application', String(pending[0].id)], env);
      expect(approved.status).toBe('approved');
      const [mail] = await smtp.waitFor(1);
      expect(mail.envelope.to).toEqual(['pat@example.com']);
      expect(mail.text).toContain(`${serve.url}/r/`);

      await page.goto(`${serve.url}/apply/999`);
      await expect.poll(() => page.locator('h1').textContent()).toBe('Applications closed');
      await context.close();
    } finally {
      await smtp.stop();
    }
  }, 60_000);
});
