import { describe, expect, test, vi } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, freezeDate, T0, type TestApp } from '../helpers/app.js';
import { mailingApp, PUBLIC_URL } from '../helpers/smtp.js';

/**
 * POST /api/sessions/email-link (docs/mail.md#sign-in-by-e-mail) with a real SMTP server: the link
 * mailed to members and partners, its code once and within 15 minutes, the same 202 for everyone,
 * and the limits per address and per client.
 */

const ACCEPTED = { message: 'If this address may sign in, a sign-in link is on its way to it. It works once, within 15 minutes.' };

const ask = (t: TestApp, email: string, audience: string, ip = '203.0.113.7') =>
  t.app.inject({ method: 'POST', url: '/api/sessions/email-link', payload: { email, audience }, remoteAddress: ip });

const exchange = (t: TestApp, code: string) => t.app.inject({ method: 'POST', url: '/api/sessions/exchange', payload: { code } });

/** A program with its partner (partner1@example.com) and a member, ana@example.com. */
async function setUp() {
  const t = await buildTestApp();
  const program = await t.program({ name: 'Acme partners' });
  await t.admin('POST', `/programs/${program.id}/members`, { email: 'ana@example.com' });
  const mailing = await mailingApp(t.deps);
  return { t, program, ...mailing };
}

/** The code of the link in a mail's text, on `page`. */
function codeIn(text: string, page: 'dashboard' | 'portal'): string {
  const match = new RegExp(`${PUBLIC_URL.replaceAll('.', '\\.')}/${page}#code=(pkc_[A-Za-z0-9_-]+)`).exec(text);
  if (!match) throw new Error(`no ${page} link in ${text}`);
  return match[1];
}

describe('sign-in links by mail', () => {
  test('a member gets a dashboard link whose code opens a session once', async () => {
    const { t, smtp, worker } = await setUp();
    const answer = await ask(t, 'Ana@Example.com', 'member');
    expect({ status: answer.statusCode, body: answer.json() }).toEqual({ status: 202, body: ACCEPTED });
    await worker.runDue();
    const [mail] = await smtp.waitFor(1);
    expect(mail.envelope.to).toEqual(['ana@example.com']);
    expect(mail.subject).toBe('Your sign-in link to the partnerkit dashboard');
    const code = codeIn(mail.text!, 'dashboard');
    expect(codeIn(mail.html as string, 'dashboard')).toBe(code);
    const opened = await exchange(t, code);
    expect(opened.statusCode).toBe(200);
    expect(opened.json().expiresAt).toBe('2026-03-02T12:00:00.000Z');
    const me = await t.app.inject({ method: 'GET', url: '/api/me', headers: { authorization: `Bearer ${opened.json().token}` } });
    expect(me.json()).toMatchObject({ user: { email: 'ana@example.com' }, programs: [{ name: 'Acme partners' }] });
    const again = await exchange(t, code);
    expect({ status: again.statusCode, code: again.json().error.code }).toEqual({ status: 400, code: 'invalid_sign_in_code' });
  });

  test('a partner gets a portal link, addressed by name; its code expires after 15 minutes', async () => {
    const { t, program, smtp, worker } = await setUp();
    expect((await ask(t, 'partner1@example.com', 'partner')).statusCode).toBe(202);
    await worker.runDue();
    const [mail] = await smtp.waitFor(1);
    expect(mail.to).toMatchObject({ value: [{ name: 'Partner', address: 'partner1@example.com' }] });
    expect(mail.text).toContain('Hello Partner,');
    const code = codeIn(mail.text!, 'portal');
    t.clock.set('2026-03-01T12:15:00.000Z');
    expect((await exchange(t, code)).json().error.code).toBe('invalid_sign_in_code');

    t.clock.set(T0);
    await ask(t, 'partner1@example.com', 'partner');
    await worker.runDue();
    const fresh = codeIn((await smtp.waitFor(2))[1].text!, 'portal');
    t.clock.set('2026-03-01T12:14:59.999Z');
    const opened = await exchange(t, fresh);
    expect(opened.statusCode).toBe(200);
    const me = await t.app.inject({ method: 'GET', url: '/api/portal/me', headers: { authorization: `Bearer ${opened.json().token}` } });
    expect(me.json()).toMatchObject({ partner: { id: program.partnerId } });
  });

  test.each([
    ['an unknown address', 'nobody@example.com', 'member'],
    ['a partner asking for the dashboard', 'partner1@example.com', 'member'],
    ['a member asking for the portal', 'ana@example.com', 'partner'],
  ])('%s: the same 202, nothing stored, nothing sent', async (_, email, audience) => {
    const { t, smtp, worker } = await setUp();
    const answer = await ask(t, email, audience);
    expect({ status: answer.statusCode, body: answer.json() }).toEqual({ status: 202, body: ACCEPTED });
    await worker.runDue();
    expect(smtp.mails).toHaveLength(0);
    expect(await t.count('sign_in_codes')).toBe(0);
    expect(await t.count('outbox_messages')).toBe(0);
  });

  test('a removed member and an inactive partner get nothing', async () => {
    const { t, program, smtp, worker } = await setUp();
    await t.admin('POST', `/programs/${program.id}/members/remove`, { email: 'ana@example.com' });
    await t.admin('PATCH', `/partners/${program.partnerId}`, { status: 'inactive' });
    expect((await ask(t, 'ana@example.com', 'member')).statusCode).toBe(202);
    expect((await ask(t, 'partner1@example.com', 'partner')).statusCode).toBe(202);
    await worker.runDue();
    expect(smtp.mails).toHaveLength(0);
  });

  test('without mail set up: the same 202, and nothing is stored', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    await t.admin('POST', `/programs/${program.id}/members`, { email: 'ana@example.com' });
    const answer = await ask(t, 'ana@example.com', 'member');
    expect({ status: answer.statusCode, body: answer.json() }).toEqual({ status: 202, body: ACCEPTED });
    expect(await t.count('sign_in_codes')).toBe(0);
    expect(await t.count('outbox_messages')).toBe(0);
  });

  test.each([
    [{ email: 'not an address', audience: 'member' }, 'email'],
    [{ email: `${'a'.repeat(250)}@example.com`, audience: 'member' }, 'email'],
    [{ email: 'ana@example.com', audience: 'admin' }, 'audience'],
    [{ audience: 'member' }, 'email'],
  ])('%j is 400 invalid_request naming %s', async (payload, field) => {
    const t = await buildTestApp();
    const answer = await t.app.inject({ method: 'POST', url: '/api/sessions/email-link', payload });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().error.code).toBe('invalid_request');
    expect(answer.json().error.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
  });

  test('at most 5 links per address an hour: the 6th is the same 202 and sends nothing; an hour later it sends again', async () => {
    freezeDate();
    const { t, smtp, worker } = await setUp();
    for (let i = 0; i < 6; i++) {
      const answer = await ask(t, i % 2 ? 'ANA@example.com' : 'ana@example.com', 'member', `203.0.113.${i + 1}`);
      expect({ status: answer.statusCode, body: answer.json() }).toEqual({ status: 202, body: ACCEPTED });
    }
    await worker.runDue();
    expect(smtp.mails).toHaveLength(5);
    vi.setSystemTime(Date.parse(T0) + 3_600_000);
    await ask(t, 'ana@example.com', 'member');
    await worker.runDue();
    expect(smtp.mails).toHaveLength(6);
  });

  test('at most 20 requests per client address an hour: the 21st sends nothing, another client still gets its link', async () => {
    freezeDate();
    const { t, smtp, worker } = await setUp();
    for (let i = 0; i < 20; i++) expect((await ask(t, `someone${i}@example.com`, 'member')).statusCode).toBe(202);
    const over = await ask(t, 'ana@example.com', 'member');
    expect({ status: over.statusCode, body: over.json() }).toEqual({ status: 202, body: ACCEPTED });
    await worker.runDue();
    expect(smtp.mails).toHaveLength(0);
    await ask(t, 'ana@example.com', 'member', '198.51.100.1');
    await worker.runDue();
    expect(smtp.mails).toHaveLength(1);
  });

  test('revoking a member\'s sessions drops the code of a link mailed before', async () => {
    const { t, smtp, worker } = await setUp();
    await ask(t, 'ana@example.com', 'member');
    await worker.runDue();
    const code = codeIn((await smtp.waitFor(1))[0].text!, 'dashboard');
    const revoked = await t.app.inject({ method: 'POST', url: '/api/admin/sessions/revoke', payload: { email: 'ana@example.com' }, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(revoked.statusCode).toBe(200);
    expect((await exchange(t, code)).json().error.code).toBe('invalid_sign_in_code');
  });
});
