import { describe, expect, test, vi } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, freezeDate, T0, type TestApp } from '../helpers/app.js';
import { receiver } from '../helpers/receiver.js';
import { mailingApp, PUBLIC_URL } from '../helpers/smtp.js';

/**
 * Partner applications (docs/applications.md): the public API with its validation and its one
 * answer, one application per e-mail, approve, reject, auto-approve, the events and the mail.
 */

const RECEIVED = { message: 'Thank you: your application was received. You will hear from us by e-mail.' };
const PAT = { name: 'Pat Doe', email: 'Pat@Example.com', website: 'https://pat.example/', message: 'I review tools.' };

const applyTo = (t: TestApp, programId: number, payload: unknown, ip = '203.0.113.9') =>
  t.app.inject({ method: 'POST', url: `/api/public/programs/${programId}/applications`, payload: payload as object, remoteAddress: ip });

const asAdmin = (t: TestApp, method: 'GET' | 'POST', url: string, payload?: unknown) =>
  t.app.inject({ method, url, payload: payload as object, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

async function setUp(settings: Record<string, unknown> = {}) {
  const t = await buildTestApp();
  const program = await t.program({ name: 'Acme partners', ...settings });
  return { t, program };
}

describe('applying', () => {
  test('the public program, then an application: 202, stored pending, listed for members', async () => {
    const { t, program } = await setUp();
    const shown = await t.app.inject({ method: 'GET', url: `/api/public/programs/${program.id}` });
    expect(shown.json()).toEqual({ id: program.id, name: 'Acme partners' });
    const answer = await applyTo(t, program.id, PAT);
    expect({ status: answer.statusCode, body: answer.json() }).toEqual({ status: 202, body: RECEIVED });
    const list = await asAdmin(t, 'GET', `/api/programs/${program.id}/applications`);
    expect(list.json()).toEqual({
      data: [{
        id: 1, programId: program.id, name: 'Pat Doe', email: 'pat@example.com', website: 'https://pat.example/', message: 'I review tools.',
        status: 'pending', reason: null, partnerId: null, createdAt: T0, decidedAt: null,
      }],
    });
    expect(await t.count('partners')).toBe(1); // only the fixture's partner: an applicant is no partner yet
  });

  test('the same e-mail applying twice is one application, and the same answer', async () => {
    const { t, program } = await setUp();
    await applyTo(t, program.id, PAT);
    const again = await applyTo(t, program.id, { ...PAT, email: 'pat@example.com', name: 'Someone else' });
    expect({ status: again.statusCode, body: again.json() }).toEqual({ status: 202, body: RECEIVED });
    const { data } = (await asAdmin(t, 'GET', `/api/programs/${program.id}/applications`)).json();
    expect(data.map((a: { name: string }) => a.name)).toEqual(['Pat Doe']);
  });

  test.each([
    ['a bad e-mail', 'email', { ...PAT, email: 'pat-at-example' }],
    ['an over-long name', 'name', { ...PAT, name: 'x'.repeat(201) }],
    ['an empty name', 'name', { ...PAT, name: '   ' }],
    ['a website that is no http URL', 'website', { ...PAT, website: 'javascript:alert(1)' }],
    ['an over-long message', 'message', { ...PAT, message: 'm'.repeat(2001) }],
    ['an over-long e-mail', 'email', { ...PAT, email: `${'a'.repeat(250)}@example.com` }],
  ])('%s is 400 invalid_request naming %s, and nothing is stored', async (_, field, payload) => {
    const { t, program } = await setUp();
    const answer = await applyTo(t, program.id, payload);
    expect(answer.statusCode).toBe(400);
    expect(answer.json().error.code).toBe('invalid_request');
    expect(answer.json().error.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    expect(await t.count('partner_applications')).toBe(0);
  });

  test('a closed program and an unknown one are 404 to the page and to applications', async () => {
    const { t, program } = await setUp({ applicationsOpen: false });
    for (const id of [program.id, 99]) {
      expect((await t.app.inject({ method: 'GET', url: `/api/public/programs/${id}` })).statusCode).toBe(404);
      const answer = await applyTo(t, id, PAT);
      expect({ status: answer.statusCode, code: answer.json().error.code }).toEqual({ status: 404, code: 'not_found' });
    }
    expect(await t.count('partner_applications')).toBe(0);
  });

  test('10 applications an hour per client address; the 11th is 429', async () => {
    freezeDate();
    const { t, program } = await setUp();
    for (let i = 0; i < 10; i++) expect((await applyTo(t, program.id, { ...PAT, email: `p${i}@example.com` })).statusCode).toBe(202);
    const over = await applyTo(t, program.id, { ...PAT, email: 'p10@example.com' });
    expect({ status: over.statusCode, code: over.json().error.code, retry: over.json().error.retry_after_seconds }).toEqual({ status: 429, code: 'rate_limited', retry: 3600 });
    expect((await applyTo(t, program.id, { ...PAT, email: 'p11@example.com' }, '198.51.100.2')).statusCode).toBe(202);
    vi.setSystemTime(Date.parse(T0) + 3_600_000);
    expect((await applyTo(t, program.id, { ...PAT, email: 'p12@example.com' })).statusCode).toBe(202);
  });

  test('partner.applied goes to the program\'s webhook endpoints', async () => {
    const { t, program } = await setUp();
    const hooks = await receiver();
    await asAdmin(t, 'POST', `/api/programs/${program.id}/webhook-endpoints`, { url: hooks.url, events: ['partner.applied'] });
    await applyTo(t, program.id, PAT);
    const { DeliveryWorker } = await import('../../src/domain/outbound/worker.js');
    const worker = new DeliveryWorker(t.deps);
    await worker.runDue();
    await worker.stop();
    expect(hooks.received.map((r) => [r.json.type, r.json.data.email, r.json.data.status])).toEqual([['partner.applied', 'pat@example.com', 'pending']]);
  });
});

describe('deciding', () => {
  test('approve: a partner is made and enrolled, and mailed its link and the portal', async () => {
    const { t, program } = await setUp();
    const { smtp, worker } = await mailingApp(t.deps);
    await applyTo(t, program.id, PAT);
    t.clock.set('2026-03-01T13:00:00.000Z');
    const approved = await asAdmin(t, 'POST', '/api/applications/1/approve');
    expect(approved.statusCode).toBe(200);
    expect(approved.json()).toMatchObject({ status: 'approved', partnerId: 2, decidedAt: '2026-03-01T13:00:00.000Z', reason: null });
    const { refCode, status } = await t.admin('GET', `/programs/${program.id}/partners/2`);
    expect(status).toBe('active');
    await worker.runDue();
    const [mail] = await smtp.waitFor(1);
    expect(mail.envelope.to).toEqual(['pat@example.com']);
    expect(mail.subject).toBe('Welcome to Acme partners: your partner link');
    expect(mail.text).toContain(`${PUBLIC_URL}/r/${refCode}`);
    expect(mail.text).toContain(`${PUBLIC_URL}/portal`);
    expect(mail.html).toContain('Acme partners');
    const again = await asAdmin(t, 'POST', '/api/applications/1/reject', { reason: 'changed my mind' });
    expect({ status: again.statusCode, message: again.json().error.message }).toEqual({ status: 409, message: 'Application 1 was already approved' });
  });

  test('approve an address that is already a partner elsewhere: that partner is enrolled', async () => {
    const { t, program } = await setUp();
    const other = await t.program({ name: 'Other' });
    await applyTo(t, other.id, { ...PAT, email: 'partner1@example.com' });
    const approved = await asAdmin(t, 'POST', '/api/applications/1/approve');
    expect(approved.json()).toMatchObject({ status: 'approved', partnerId: program.partnerId });
    expect(await t.count('partners')).toBe(2);
    expect(await t.count('partner_programs', `partner_id = ${program.partnerId}`)).toBe(2);
  });

  test('reject keeps the reason and mails nothing; a reason is required', async () => {
    const { t, program } = await setUp();
    const { smtp, worker } = await mailingApp(t.deps);
    await applyTo(t, program.id, PAT);
    const bad = await asAdmin(t, 'POST', '/api/applications/1/reject', { reason: ' ' });
    expect(bad.statusCode).toBe(400);
    const rejected = await asAdmin(t, 'POST', '/api/applications/1/reject', { reason: 'No website traffic' });
    expect(rejected.json()).toMatchObject({ status: 'rejected', reason: 'No website traffic', partnerId: null });
    await worker.runDue();
    expect(smtp.mails).toHaveLength(0);
    const listed = (await asAdmin(t, 'GET', `/api/programs/${program.id}/applications?status=rejected`)).json();
    expect(listed.data).toHaveLength(1);
    expect((await asAdmin(t, 'GET', `/api/programs/${program.id}/applications?status=pending`)).json().data).toEqual([]);
  });

  test('auto-approve: the application is approved as it arrives', async () => {
    const { t, program } = await setUp({ autoApprove: true });
    const { smtp, worker } = await mailingApp(t.deps);
    expect((await applyTo(t, program.id, PAT)).json()).toEqual(RECEIVED);
    const { data } = (await asAdmin(t, 'GET', `/api/programs/${program.id}/applications`)).json();
    expect(data).toMatchObject([{ status: 'approved', partnerId: 2, decidedAt: T0 }]);
    await worker.runDue();
    expect((await smtp.waitFor(1))[0].subject).toBe('Welcome to Acme partners: your partner link');
  });

  test('a member of another program sees a 404 and decides nothing; no credential is 401', async () => {
    const { t, program } = await setUp();
    await applyTo(t, program.id, PAT);
    const other = await t.program({ name: 'Other' });
    await t.admin('POST', `/programs/${other.id}/members`, { email: 'eve@example.com' });
    const { token } = await t.admin('POST', '/sessions', { email: 'eve@example.com' });
    const approve = await t.app.inject({ method: 'POST', url: '/api/applications/1/approve', headers: { authorization: `Bearer ${token}` } });
    expect({ status: approve.statusCode, code: approve.json().error.code }).toEqual({ status: 404, code: 'not_found' });
    const list = await t.app.inject({ method: 'GET', url: `/api/programs/${program.id}/applications`, headers: { authorization: `Bearer ${token}` } });
    expect(list.statusCode).toBe(403);
    expect((await t.app.inject({ method: 'POST', url: '/api/applications/1/approve' })).statusCode).toBe(401);
  });
});
