import { describe, expect, test } from 'vitest';
import { queueMail, type Mail } from '../../src/domain/mail/compose.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { mailingApp } from '../helpers/smtp.js';

/**
 * The outbox's mail channel (docs/mail.md#the-outbox) against a real SMTP server on 127.0.0.1:
 * what arrives, an SMTP server down or refusing then back (exactly one mail), and header injection.
 */

const MAIL: Mail = {
  kind: 'sign_in',
  programId: 0,
  to: { name: 'Ana Lima', address: 'ana@example.com' },
  subject: 'Your sign-in link',
  text: 'Open https://partners.acme.example/portal#code=x\n',
  html: '<p><a href="https://partners.acme.example/portal#code=x">Sign in</a></p>',
};

const queue = (t: TestApp, ...mails: Mail[]) => t.store.transaction((sql) => queueMail(t.deps, sql, mails));

/** The mail deliveries' status, attempts and next attempt. */
const deliveries = (t: TestApp) =>
  t.store.read((sql) => sql.all<{ status: string; attempts: number; next_attempt_at: Date | null }>(
    "SELECT status, attempts, next_attempt_at FROM outbox_deliveries WHERE channel = 'mail' ORDER BY id",
  ));

const at = (t: TestApp, seconds: number) => t.clock.set(new Date(Date.parse('2026-03-01T12:00:00.000Z') + seconds * 1000).toISOString());

describe('the mail channel', () => {
  test('a mail arrives once, to its one recipient, with a text and an HTML part and the same Message-ID as its outbox id', async () => {
    const t = await buildTestApp();
    const { smtp, worker } = await mailingApp(t.deps);
    await queue(t, MAIL);
    await worker.runDue();
    await worker.runDue();
    expect(smtp.mails).toHaveLength(1);
    const [mail] = smtp.mails;
    expect(mail.envelope.to).toEqual(['ana@example.com']);
    expect(mail.from?.value).toEqual([{ name: 'Acme Partners', address: 'partners@acme.example' }]);
    expect(mail.to).toMatchObject({ value: [{ name: 'Ana Lima', address: 'ana@example.com' }] });
    expect(mail.subject).toBe('Your sign-in link');
    expect(mail.text?.trim()).toBe(MAIL.text.trim());
    expect(String(mail.html).trim()).toBe(MAIL.html);
    const { ref } = (await t.store.read((sql) => sql.one<{ ref: string }>("SELECT ref FROM outbox_messages WHERE channel = 'mail'")))!;
    expect(mail.messageId).toBe(`<${ref}@partnerkit>`);
    expect(await deliveries(t)).toEqual([{ status: 'delivered', attempts: 1, next_attempt_at: null }]);
  });

  test('without mail settings nothing is written', async () => {
    const t = await buildTestApp();
    await queue(t, MAIL);
    expect(await t.count('outbox_messages')).toBe(0);
    expect(await t.count('outbox_deliveries')).toBe(0);
  });

  test('a mail whose change rolls back is never sent', async () => {
    const t = await buildTestApp();
    const { smtp, worker } = await mailingApp(t.deps);
    await expect(
      t.store.transaction(async (sql) => {
        await queueMail(t.deps, sql, [MAIL]);
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await worker.runDue();
    expect(smtp.mails).toHaveLength(0);
    expect(await t.count('outbox_messages')).toBe(0);
  });

  test('SMTP down, then up: retried 5 s, 15 s, 30 s later, then exactly one mail', async () => {
    const t = await buildTestApp();
    const { smtp, worker } = await mailingApp(t.deps);
    await smtp.stop();
    await queue(t, MAIL);
    await worker.runDue();
    expect(await deliveries(t)).toEqual([{ status: 'pending', attempts: 1, next_attempt_at: new Date('2026-03-01T12:00:05.000Z') }]);
    const attempts = await t.store.read((sql) => sql.all<{ status_code: number | null; error: string }>('SELECT status_code, error FROM outbox_attempts'));
    expect(attempts).toEqual([{ status_code: null, error: expect.stringContaining('ECONNREFUSED') }]);
    at(t, 4);
    await worker.runDue();
    expect(await deliveries(t)).toMatchObject([{ attempts: 1 }]);
    at(t, 5);
    await worker.runDue();
    expect(await deliveries(t)).toEqual([{ status: 'pending', attempts: 2, next_attempt_at: new Date('2026-03-01T12:00:20.000Z') }]);
    await smtp.start();
    at(t, 20);
    await worker.runDue();
    expect(await deliveries(t)).toEqual([{ status: 'delivered', attempts: 3, next_attempt_at: null }]);
    at(t, 3600);
    await worker.runDue();
    expect(smtp.mails).toHaveLength(1);
    expect(await t.count('outbox_attempts')).toBe(3);
  });

  test('a server that refuses (451) is tried again, and the mail is sent once it accepts', async () => {
    const t = await buildTestApp();
    const { smtp, worker } = await mailingApp(t.deps);
    smtp.refuse(451);
    await queue(t, MAIL);
    await worker.runDue();
    const [attempt] = await t.store.read((sql) => sql.all<{ status_code: number; response: string }>('SELECT status_code, response FROM outbox_attempts'));
    expect(attempt.status_code).toBe(451);
    expect(attempt.response).toContain('Try again later');
    smtp.refuse(null);
    at(t, 5);
    await worker.runDue();
    at(t, 600);
    await worker.runDue();
    expect(smtp.mails).toHaveLength(1);
    expect(await deliveries(t)).toEqual([{ status: 'delivered', attempts: 2, next_attempt_at: null }]);
  });

  test('CR/LF in a name or a subject never makes a header of its own, nor another recipient', async () => {
    const t = await buildTestApp();
    const { smtp, worker } = await mailingApp(t.deps);
    await queue(t, {
      ...MAIL,
      to: { name: 'Eve\r\nBcc: victim@example.net\r\nX-Injected: name', address: 'eve@example.com' },
      subject: 'Hello\r\nX-Injected: subject\nCc: other@example.net\u2028Reply-To: evil@example.net',
    });
    await worker.runDue();
    const [mail] = await smtp.waitFor(1);
    expect(mail.envelope.to).toEqual(['eve@example.com']);
    const names = mail.headerLines.map((l) => l.key);
    for (const injected of ['bcc', 'cc', 'x-injected', 'reply-to']) expect(names).not.toContain(injected);
    expect(mail.rawHeaders).not.toMatch(/^(Bcc|Cc|X-Injected|Reply-To):/im);
    expect(mail.subject).toBe('Hello X-Injected: subject Cc: other@example.net Reply-To: evil@example.net');
    expect(mail.to).toMatchObject({ value: [{ name: 'Eve Bcc: victim@example.net X-Injected: name', address: 'eve@example.com' }] });
  });
});
