import { describe, expect, test } from 'vitest';
import { notify } from '../../src/domain/mail/notifications.js';
import { RETRY_DELAYS_SECONDS } from '../../src/domain/outbound/worker.js';
import { ADMIN_TOKEN, buildTestApp, T0, type TestApp } from '../helpers/app.js';
import { receiver } from '../helpers/receiver.js';
import { mailingApp, PUBLIC_URL, type Caught } from '../helpers/smtp.js';

/**
 * Notifications (docs/mail.md#notifications-and-unsubscribing) through a real SMTP server: a new
 * application, a disabled webhook endpoint and events failed for good to the program's active
 * members, a sale's commission and a paid payout to its partner, each with a text and
 * an HTML part and RFC 8058 one-click unsubscribe, which switches off that kind only.
 */

const asAdmin = (t: TestApp, method: 'GET' | 'POST', url: string, payload?: unknown) =>
  t.app.inject({ method, url, payload: payload as object, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

const apply = (t: TestApp, programId: number, email: string) =>
  t.app.inject({ method: 'POST', url: `/api/public/programs/${programId}/applications`, payload: { name: 'Pat <b>Doe</b>', email, message: 'Hi' } });

/** A header of a mail as sent, unfolded. */
const rawHeader = (mail: Caught, key: string) =>
  mail.headerLines.find((l) => l.key === key)?.line.replace(/\r?\n[ \t]+/g, ' ').slice(key.length + 1).trim();

/** The link of a mail's List-Unsubscribe header. */
const unsubscribeLink = (mail: Caught) => /^<([^>]+)>$/.exec(rawHeader(mail, 'list-unsubscribe') ?? '')![1];

async function setUp() {
  const t = await buildTestApp();
  const program = await t.program({ name: 'Acme partners', holdDays: 0 });
  for (const email of ['ana@example.com', 'bo@example.com', 'gone@example.com']) await t.admin('POST', `/programs/${program.id}/members`, { email });
  await t.admin('POST', `/programs/${program.id}/members/remove`, { email: 'gone@example.com' });
  return { t, program, ...(await mailingApp(t.deps)) };
}

describe('notifications', () => {
  test('a new application is mailed to each active member, never naming the applicant\'s address', async () => {
    const { t, program, smtp, worker } = await setUp();
    await apply(t, program.id, 'pat@example.com');
    await worker.runDue();
    const mails = await smtp.waitFor(2);
    expect(mails.map((m) => m.envelope.to).sort()).toEqual([['ana@example.com'], ['bo@example.com']]);
    for (const mail of mails) {
      expect(mail.subject).toBe('New partner application to Acme partners');
      expect(mail.text).toContain('Pat <b>Doe</b> applied to become a partner of Acme partners.');
      expect(mail.html).toContain('Pat &lt;b&gt;Doe&lt;/b&gt; applied');
      expect(`${mail.text}${mail.html}${mail.rawHeaders}`).not.toContain('pat@example.com');
      expect(rawHeader(mail, 'list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
      expect(unsubscribeLink(mail).startsWith(`${PUBLIC_URL}/mail/unsubscribe?`)).toBe(true);
    }
  });

  test('a sale\'s commission is mailed to its partner, never naming the customer; unsubscribed, the next is not', async () => {
    const { t, program, smtp, worker } = await setUp();
    await t.lead(program, 'cust_1', { email: 'buyer@example.com' });
    await t.sale(program, { transaction_id: 'in_1' });
    await worker.runDue();
    const [mail] = await smtp.waitFor(1);
    expect(mail.envelope.to).toEqual(['partner1@example.com']);
    expect(mail.subject).toBe('You earned 10.00 USD from Acme partners');
    expect(mail.text).toContain('a sale through your partner link earned you a commission of 10.00 USD in Acme partners (commission 1, held until 2026-03-01).');
    expect(`${mail.text}${mail.html}${mail.rawHeaders}`).not.toContain('buyer@example.com');
    const path = unsubscribeLink(mail).slice(PUBLIC_URL.length);
    expect(path).toContain('kind=commission_created');
    await t.app.inject({ method: 'POST', url: path, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    await t.sale(program, { transaction_id: 'in_2' });
    await worker.runDue();
    expect(smtp.mails).toHaveLength(1);
    expect(await t.count('commissions')).toBe(2);
  });

  test('notifications of several kinds at once (a batch of sales): each kept recipient gets its mail, an unsubscribed one only the kinds still on', async () => {
    const { t, program, smtp, worker } = await setUp();
    await t.lead(program, 'cust_1');
    await t.sale(program, { transaction_id: 'in_1' });
    await worker.runDue();
    const [first] = await smtp.waitFor(1);
    await t.app.inject({ method: 'POST', url: unsubscribeLink(first).slice(PUBLIC_URL.length), payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const partner = { name: 'Partner 1', address: 'partner1@example.com' };
    const other = { name: 'Other', address: 'other@example.com' };
    await t.deps.store.transaction((sql) => notify(t.deps, sql, [
      { kind: 'commission_created', programId: program.id, to: [partner], subject: 'C1', lines: ['one'] },
      { kind: 'commission_created', programId: program.id, to: [other], subject: 'C2', lines: ['two'] },
      { kind: 'payout_paid', programId: program.id, to: [partner], subject: 'P1', lines: ['three'] },
      { kind: 'commission_created', programId: program.id, to: [other, partner], subject: 'C3', lines: ['four'] },
    ]));
    await worker.runDue();
    const mails = (await smtp.waitFor(4)).slice(1);
    expect(mails.map((m) => `${m.envelope.to[0]} ${m.subject}`).sort()).toEqual(['other@example.com C2', 'other@example.com C3', 'partner1@example.com P1']);
    await worker.runDue();
    expect(smtp.mails).toHaveLength(4);
  });

  test('a payout marked paid is mailed to its partner with the amount', async () => {
    const { t, program, smtp, worker } = await setUp();
    await t.lead(program);
    await t.sale(program, { transaction_id: 'in_1' });
    await t.sale(program, { transaction_id: 'in_2' });
    const created = (await asAdmin(t, 'POST', `/api/programs/${program.id}/payouts`)).json();
    const id = created.payouts[0].id;
    expect((await asAdmin(t, 'POST', `/api/payouts/${id}/mark-paid`)).statusCode).toBe(200);
    await worker.runDue();
    const mail = (await smtp.waitFor(3))[2];
    expect(mail.envelope.to).toEqual(['partner1@example.com']);
    expect(mail.subject).toBe('Your payout of 20.00 USD from Acme partners was paid');
    expect(mail.text).toContain(`Acme partners marked your payout ${id} of 20.00 USD paid.`);
    expect(mail.text).not.toContain('buyer@example.com');
  });

  test('a webhook endpoint that answers 410 is disabled, and the members are told, without the URL\'s credentials', async () => {
    const { t, program, smtp, worker } = await setUp();
    const hooks = await receiver(() => 410);
    const url = hooks.url.replace('http://', 'http://user:secret@');
    await asAdmin(t, 'POST', `/api/programs/${program.id}/webhook-endpoints`, { url, events: ['sale.created'] });
    await t.lead(program);
    await t.sale(program, { transaction_id: 'in_1' });
    await worker.runDue();
    const told = smtp.mails.filter((m) => m.subject === 'Webhook endpoint 1 was disabled');
    expect(told.map((m) => m.envelope.to).sort()).toEqual([['ana@example.com'], ['bo@example.com']]);
    expect(told[0].text).toContain(`(${hooks.url}) answered 410 Gone and was disabled`);
    expect(`${told[0].text}${told[0].html}`).not.toContain('secret');
  });

  test('an event whose 8th attempt fails is reported to the members once', async () => {
    const { t, program, smtp, worker } = await setUp();
    const hooks = await receiver(() => 500);
    await asAdmin(t, 'POST', `/api/programs/${program.id}/webhook-endpoints`, { url: hooks.url, events: ['sale.created'] });
    await t.lead(program);
    await t.sale(program, { transaction_id: 'in_1' });
    await worker.runDue();
    let at = Date.parse(T0);
    for (const seconds of RETRY_DELAYS_SECONDS) {
      at += seconds * 1000;
      t.clock.set(new Date(at).toISOString());
      await worker.runDue();
    }
    expect(hooks.received).toHaveLength(8);
    const told = smtp.mails.filter((m) => m.subject === 'Webhook events to endpoint 1 failed for good');
    expect(told.map((m) => m.envelope.to).sort()).toEqual([['ana@example.com'], ['bo@example.com']]);
    expect(told[0].text).toMatch(/evt_\S+ \(sale\.created\)/);
  });

  test('one-click unsubscribe: GET only asks, POST switches that kind off for that address, other kinds and people still get theirs; subscribe switches it on again', async () => {
    const { t, program, smtp, worker } = await setUp();
    await apply(t, program.id, 'p1@example.com');
    await worker.runDue();
    const anas = (await smtp.waitFor(2)).find((m) => m.envelope.to[0] === 'ana@example.com')!;
    const link = unsubscribeLink(anas);
    const path = link.slice(PUBLIC_URL.length);
    const asked = await t.app.inject({ method: 'GET', url: path });
    expect(asked.statusCode).toBe(200);
    expect(asked.body).toContain('<button type="submit">Unsubscribe</button>');
    expect(await t.count('mail_unsubscribes')).toBe(0);
    const done = await t.app.inject({ method: 'POST', url: path, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('ana@example.com gets no more of these mails.');
    expect(done.body).toContain('Subscribe again');
    await apply(t, program.id, 'p2@example.com');
    await worker.runDue();
    const after = (await smtp.waitFor(3)).slice(2);
    expect(after.map((m) => m.envelope.to)).toEqual([['bo@example.com']]);
    // The page's other button: on again.
    const again = await t.app.inject({ method: 'POST', url: path.replace('/mail/unsubscribe', '/mail/subscribe'), payload: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(again.body).toContain('ana@example.com gets these mails again.');
    expect(await t.count('mail_unsubscribes')).toBe(0);
    await apply(t, program.id, 'p3@example.com');
    await worker.runDue();
    expect((await smtp.waitFor(5)).slice(3).map((m) => m.envelope.to).sort()).toEqual([['ana@example.com'], ['bo@example.com']]);
  });

  test('an unsubscribe link with a changed address or kind is refused and changes nothing', async () => {
    const { t, program, smtp, worker } = await setUp();
    await apply(t, program.id, 'p1@example.com');
    await worker.runDue();
    const path = unsubscribeLink((await smtp.waitFor(1))[0]).slice(PUBLIC_URL.length);
    for (const forged of [path.replace(/email=[^&]+/, 'email=eve%40example.com'), path.replace('kind=partner_applied', 'kind=payout_paid'), path.replace(/sig=[^&]+/, 'sig=x')]) {
      const answer = await t.app.inject({ method: 'POST', url: forged, payload: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(answer.statusCode).toBe(400);
    }
    expect(await t.count('mail_unsubscribes')).toBe(0);
  });
});
