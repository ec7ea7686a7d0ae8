import { describe, expect, test } from 'vitest';
import { sha256 } from '../../src/domain/secrets.js';
import { ADMIN_TOKEN, buildTestApp, T0, type TestApp } from '../helpers/app.js';
import { partnerSession } from '../helpers/route-auth.js';

/**
 * Sign-in codes, session lifetime, revocation and inactive partners (docs/sessions.md): what a
 * person holding a link or a token can still do after each.
 */
const MEMBER = 'ann@example.com';

const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const MINUTE = 60_000;
const DAY = 86_400_000;

const usedLink = {
  data: null,
  error: {
    status: 400,
    name: 'SignInCodeError',
    message: 'This sign-in link has expired or has already been used: a link works once, within 15 minutes. Ask for a new one.',
    details: null,
    code: 'invalid_sign_in_code',
  },
};

async function call(t: TestApp, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, token = ADMIN_TOKEN) {
  const response = await t.app.inject({ method, url, payload, headers: { authorization: `Bearer ${token}` } });
  return { status: response.statusCode, body: response.statusCode === 204 ? null : response.json() };
}

const exchange = async (t: TestApp, code: string) => {
  const response = await t.app.inject({ method: 'POST', url: '/api/sessions/exchange', payload: { code } });
  return { status: response.statusCode, body: response.json() };
};

/** The status of GET /api/me (dashboard sessions) or GET /api/portal/me (partner sessions) with a token. */
const me = async (t: TestApp, token: string) => (await call(t, 'GET', '/api/me', undefined, token)).status;
const portal = async (t: TestApp, token: string) => (await call(t, 'GET', '/api/portal/me', undefined, token)).status;

async function withMember() {
  const t = await buildTestApp();
  const program = await t.program();
  await t.admin('POST', `/programs/${program.id}/members`, { email: MEMBER });
  return { t, program };
}

describe('sign-in codes: POST /api/sessions/exchange', () => {
  test('a dashboard code opens a session ending when the printed one does, once; its hash is stored, not the code', async () => {
    const { t } = await withMember();
    const created = await t.admin('POST', '/sessions', { email: MEMBER, ttlHours: 8 });
    expect(created).toEqual({
      token: expect.stringMatching(/^pks_/), expiresAt: at(8 * 60 * MINUTE),
      signInCode: expect.stringMatching(/^pkc_[\w-]{43}$/), signInCodeExpiresAt: at(15 * MINUTE),
    });
    const stored = await t.store.read((sql) => sql.all<{ code_hash: string }>('SELECT code_hash FROM sign_in_codes'));
    expect(stored).toEqual([{ code_hash: sha256(created.signInCode) }]);

    t.clock.set(at(5 * MINUTE));
    const first = await exchange(t, created.signInCode);
    expect(first).toEqual({ status: 200, body: { token: expect.stringMatching(/^pks_[\w-]{43}$/), expiresAt: at(8 * 60 * MINUTE) } });
    expect(first.body.token).not.toBe(created.token);
    expect(await me(t, first.body.token)).toBe(200);
    expect(await me(t, created.token)).toBe(200);

    // Reused: refused with the same answer, and no second session.
    expect(await exchange(t, created.signInCode)).toEqual({ status: 400, body: usedLink });
    expect(await t.count('sessions')).toBe(2);
  });

  test('a code is good for 15 minutes by the service clock: at 14:59.999 it works, at 15:00 it is refused', async () => {
    const { t } = await withMember();
    const early = await t.admin('POST', '/sessions', { email: MEMBER });
    const late = await t.admin('POST', '/sessions', { email: MEMBER });
    t.clock.set(at(15 * MINUTE - 1));
    expect((await exchange(t, early.signInCode)).status).toBe(200);
    t.clock.set(at(15 * MINUTE));
    expect(await exchange(t, late.signInCode)).toEqual({ status: 400, body: usedLink });
    expect(await t.count('sessions')).toBe(3);
  });

  test('a partner code opens a portal session, which the dashboard APIs refuse; an unknown code gets the same answer as a used one', async () => {
    const { t, program } = await withMember();
    const created = await partnerSession(t, program.partnerId);
    const { body } = await exchange(t, created.signInCode);
    expect(body.token).toMatch(/^pkp_/);
    expect(await portal(t, body.token)).toBe(200);
    expect(await me(t, body.token)).toBe(401);
    expect(await exchange(t, 'pkc_not_a_code')).toEqual({ status: 400, body: usedLink });
    expect(await exchange(t, `#token=${created.token}`)).toEqual({ status: 400, body: usedLink });
    const missing = await t.app.inject({ method: 'POST', url: '/api/sessions/exchange', payload: {} });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.code).toBe('invalid_request');
  });
});

describe('session lifetime', () => {
  test('at most 30 days: 720 hours is accepted, 721 is 400 with the rule, and nothing is stored', async () => {
    const { t, program } = await withMember();
    expect((await call(t, 'POST', '/api/admin/sessions', { email: MEMBER, ttlHours: 720 })).body.expiresAt).toBe(at(30 * DAY));
    const tooLong = {
      status: 400,
      body: {
        data: null,
        error: {
          status: 400, name: 'ValidationError', message: 'Invalid request: ttlHours: a session lasts at most 720 hours (30 days)',
          details: { fields: [{ field: 'ttlHours', message: 'a session lasts at most 720 hours (30 days)' }] }, code: 'invalid_request',
        },
      },
    };
    expect(await call(t, 'POST', '/api/admin/sessions', { email: MEMBER, ttlHours: 721 })).toEqual(tooLong);
    expect(await call(t, 'POST', `/api/admin/partners/${program.partnerId}/sessions`, { ttlHours: 8760 })).toEqual(tooLong);
    expect(await t.count('sessions')).toBe(1);
    expect(await t.count('partner_sessions')).toBe(0);
    expect(await t.count('sign_in_codes')).toBe(1);
  });

  test('a session stored with a longer expiry (by an older version) ends 30 days after it was created', async () => {
    const { t } = await withMember();
    const { token } = await t.admin('POST', '/sessions', { email: MEMBER });
    await t.store.transaction((sql) => sql.run('UPDATE sessions SET expires_at = $1', [new Date(at(365 * DAY))]));
    t.clock.set(at(30 * DAY - 1));
    expect(await me(t, token)).toBe(200);
    t.clock.set(at(30 * DAY));
    expect(await me(t, token)).toBe(401);
  });
});

describe('revoking sessions: POST /api/admin/sessions/revoke', () => {
  test("by e-mail: every session of that user ends (401 afterwards) and its unused link is refused; another user's stays", async () => {
    const { t, program } = await withMember();
    await t.admin('POST', `/programs/${program.id}/members`, { email: 'bob@example.com' });
    const first = await t.admin('POST', '/sessions', { email: MEMBER });
    const second = await t.admin('POST', '/sessions', { email: MEMBER });
    const opened = (await exchange(t, first.signInCode)).body.token;
    const bob = await t.admin('POST', '/sessions', { email: 'bob@example.com' });

    expect(await call(t, 'POST', '/api/admin/sessions/revoke', { email: 'ANN@example.com' })).toEqual({ status: 200, body: { revoked: 3 } });
    for (const token of [first.token, second.token, opened]) expect(await me(t, token)).toBe(401);
    expect(await exchange(t, second.signInCode)).toEqual({ status: 400, body: usedLink });
    expect(await me(t, bob.token)).toBe(200);
    expect((await exchange(t, bob.signInCode)).status).toBe(200);
    // Nothing left to end; a new session works.
    expect(await call(t, 'POST', '/api/admin/sessions/revoke', { email: MEMBER })).toEqual({ status: 200, body: { revoked: 0 } });
    expect(await me(t, (await t.admin('POST', '/sessions', { email: MEMBER })).token)).toBe(200);
  });

  test("by partner: every portal session of that partner ends; another partner's stays", async () => {
    const { t, program } = await withMember();
    const other = await t.program();
    const mine = await partnerSession(t, program.partnerId);
    const theirs = await partnerSession(t, other.partnerId);
    expect(await call(t, 'POST', '/api/admin/sessions/revoke', { partnerId: program.partnerId })).toEqual({ status: 200, body: { revoked: 1 } });
    expect(await portal(t, mine.token)).toBe(401);
    expect(await portal(t, theirs.token)).toBe(200);
  });

  test.each([
    ['an unknown e-mail', 404, { email: 'nobody@example.com' }, 'No user with e-mail nobody@example.com'],
    ['an unknown partner', 404, { partnerId: 99 }, 'Partner 99 not found'],
    ['both', 400, { email: MEMBER, partnerId: 1 }, 'Invalid request: body: give email or partnerId, one of them'],
    ['neither', 400, {}, 'Invalid request: body: give email or partnerId, one of them'],
  ])('%s is %s and ends nothing', async (_name, status, body, message) => {
    const { t } = await withMember();
    const { token } = await t.admin('POST', '/sessions', { email: MEMBER });
    const answer = await call(t, 'POST', '/api/admin/sessions/revoke', body);
    expect({ status: answer.status, message: answer.body.error.message }).toEqual({ status, message });
    expect(await me(t, token)).toBe(200);
  });
});

describe('member removal ends the sessions', () => {
  test("removing a member ends every session of the user and its unused link: 401, not 403, for the old token", async () => {
    const { t, program } = await withMember();
    const other = await t.program();
    await t.admin('POST', `/programs/${other.id}/members`, { email: MEMBER });
    const session = await t.admin('POST', '/sessions', { email: MEMBER });
    await t.admin('POST', `/programs/${program.id}/members/remove`, { email: MEMBER });
    expect(await me(t, session.token)).toBe(401);
    expect((await call(t, 'GET', `/api/tracking/performance/${other.id}`, undefined, session.token)).status).toBe(401);
    expect(await exchange(t, session.signInCode)).toEqual({ status: 400, body: usedLink });
    // Still a member of the other program: a new session opens it.
    const again = await t.admin('POST', '/sessions', { email: MEMBER });
    expect((await call(t, 'GET', `/api/me`, undefined, again.token)).body.programs).toEqual([{ id: other.id, name: expect.any(String) }]);
  });
});

describe('inactive partners: PATCH /api/admin/partners/:partnerId {status}', () => {
  test("deactivating ends the partner's sessions and stops its links, clicks and attribution; reactivating resumes them", async () => {
    const { t, program } = await withMember();
    await t.lead(program, 'cust_1');
    const session = await partnerSession(t, program.partnerId);
    // The link is followed once, so its enrollment is cached before the change.
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/track/click', payload: { ref: program.refCode } })).statusCode).toBe(200);

    const deactivated = await call(t, 'PATCH', `/api/admin/partners/${program.partnerId}`, { status: 'inactive' });
    expect(deactivated).toEqual({ status: 200, body: expect.objectContaining({ id: program.partnerId, status: 'inactive' }) });
    expect(await portal(t, session.token)).toBe(401);
    expect(await exchange(t, session.signInCode)).toEqual({ status: 400, body: usedLink });
    const click = await t.app.inject({ method: 'POST', url: '/api/v1/track/click', payload: { ref: program.refCode } });
    expect(click.statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: `/r/${program.refCode}` })).statusCode).toBe(404);
    const sale = await t.post('/api/v1/track/sale', { transaction_id: 'in_after', amount_cents: 1000, customer_key: 'cust_1' }, program.apiKey);
    expect({ status: sale.statusCode, code: sale.json().error.code }).toEqual({ status: 400, code: 'no_attribution' });
    expect((await call(t, 'GET', `/api/admin/programs/${program.id}/partners/${program.partnerId}`)).body.status).toBe('inactive');
    const conflict = (action: string) => ({
      status: 409,
      message: `Partner ${program.partnerId} is inactive and cannot ${action}; reactivate them with partner update --status active`,
    });
    const login = await call(t, 'POST', `/api/admin/partners/${program.partnerId}/sessions`, {});
    expect({ status: login.status, message: login.body.error.message }).toEqual(conflict('sign in'));
    const other = await t.admin('POST', '/programs', { name: 'Other' });
    const enroll = await call(t, 'POST', `/api/admin/programs/${other.id}/partners`, { partnerId: program.partnerId });
    expect({ status: enroll.status, message: enroll.body.error.message }).toEqual(conflict('be enrolled'));
    expect(await t.count('sale_events')).toBe(0);

    expect((await call(t, 'PATCH', `/api/admin/partners/${program.partnerId}`, { status: 'active' })).body.status).toBe('active');
    expect((await t.app.inject({ method: 'POST', url: '/api/v1/track/click', payload: { ref: program.refCode } })).statusCode).toBe(200);
    expect((await t.post('/api/v1/track/sale', { transaction_id: 'in_back', amount_cents: 1000, customer_key: 'cust_1' }, program.apiKey)).statusCode).toBe(200);
    // The sessions ended stay ended.
    expect(await portal(t, session.token)).toBe(401);
  });
});
