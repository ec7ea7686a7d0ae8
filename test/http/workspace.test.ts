import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, type TestApp } from '../helpers/app.js';

/**
 * The dashboard's Settings and Partners through a member's session (docs/api.md#workspace-settings,
 * docs/api.md#the-partners-of-a-program): the admin API's answers, behind the member check.
 */
async function call(t: TestApp, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, token = ADMIN_TOKEN) {
  const response = await t.app.inject({ method, url, payload, headers: { authorization: `Bearer ${token}` } });
  return { status: response.statusCode, body: response.json() };
}

/** A program with a member session of ann@example.com: the program's id and the token. */
async function memberOf(t: TestApp) {
  const program = await t.program();
  await t.admin('POST', `/programs/${program.id}/members`, { email: 'ann@example.com' });
  const { token } = await t.admin('POST', '/sessions', { email: 'ann@example.com' });
  return { program, token: token as string };
}

describe('settings for members', () => {
  test('a member reads and changes the settings; the answer names no secret and the admin API sees the change', async () => {
    const t = await buildTestApp();
    const { program, token } = await memberOf(t);
    const read = await call(t, 'GET', `/api/programs/${program.id}/settings`, undefined, token);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('webhookSecret');
    expect(read.body).toMatchObject({ id: program.id, holdDays: 30, fraudRules: { selfReferral: 'hold' } });
    const changed = await call(t, 'PATCH', `/api/programs/${program.id}/settings`, { holdDays: 7, commissionPercent: 12.5, fraudRules: { selfReferral: 'flag' } }, token);
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ holdDays: 7, commission: { type: 'percent', percent: 12.5 }, fraudRules: { selfReferral: 'flag' } });
    expect(await t.admin('GET', `/programs/${program.id}`)).toMatchObject({ holdDays: 7, fraudRules: { selfReferral: 'flag' } });
  });

  test('the Stripe API key is not among the settings a member changes: a body of only it changes nothing and is refused', async () => {
    const t = await buildTestApp();
    const { program, token } = await memberOf(t);
    const response = await call(t, 'PATCH', `/api/programs/${program.id}/settings`, { stripeApiKey: 'rk_test_abcdefgh12' }, token);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
    expect((await t.admin('GET', `/programs/${program.id}`)).stripeApiKeySet).toBe(false);
  });

  test("a member of another program is 403 and nothing changes", async () => {
    const t = await buildTestApp();
    const { token } = await memberOf(t);
    const other = await t.program();
    const response = await call(t, 'PATCH', `/api/programs/${other.id}/settings`, { holdDays: 1 }, token);
    expect(response.status).toBe(403);
    expect(response.body.error.message).toBe(`You are not an active member of program ${other.id}`);
    expect((await t.admin('GET', `/programs/${other.id}`)).holdDays).toBe(30);
    expect((await call(t, 'POST', `/api/programs/${other.id}/keys`, {}, token)).status).toBe(403);
    expect(await t.admin('GET', `/programs/${other.id}/keys`)).toHaveLength(2);
  });
});

describe('API keys and members for members', () => {
  test('a member creates a key (shown once), lists it by prefix, and retires it: the key is refused from then on', async () => {
    const t = await buildTestApp();
    const { program, token } = await memberOf(t);
    const created = await call(t, 'POST', `/api/programs/${program.id}/keys`, {}, token);
    expect(created.status).toBe(200);
    expect(created.body.apiKey).toMatch(/^pk_live_/);
    const keys = (await call(t, 'GET', `/api/programs/${program.id}/keys`, undefined, token)).body;
    expect(keys.map((k: { id: number; status: string }) => [k.id, k.status])).toEqual([[1, 'active'], [2, 'active'], [created.body.id, 'active']]);
    expect(JSON.stringify(keys)).not.toContain(created.body.apiKey);
    expect(keys.at(-1).prefix).toBe(created.body.apiKey.slice(0, 12));
    expect((await t.post('/api/v1/track/click', { ref: program.refCode }, created.body.apiKey)).statusCode).toBe(200);
    const retired = await call(t, 'POST', `/api/programs/${program.id}/keys/${created.body.id}/retire`, undefined, token);
    expect(retired).toEqual({ status: 200, body: { id: created.body.id, status: 'retired' } });
    expect((await t.post('/api/v1/track/click', { ref: program.refCode }, created.body.apiKey)).statusCode).toBe(401);
  });

  test('a member lists, adds and removes members; the removed one is inactive and signed out', async () => {
    const t = await buildTestApp();
    const { program, token } = await memberOf(t);
    const added = await call(t, 'POST', `/api/programs/${program.id}/members`, { email: 'Bob@Example.com' }, token);
    expect(added.status).toBe(200);
    expect(added.body).toMatchObject({ programId: program.id, status: 'active' });
    const { token: bobToken } = await t.admin('POST', '/sessions', { email: 'bob@example.com' });
    const removed = await call(t, 'POST', `/api/programs/${program.id}/members/remove`, { email: 'bob@example.com' }, token);
    expect(removed.body.status).toBe('inactive');
    const list = await call(t, 'GET', `/api/programs/${program.id}/members`, undefined, token);
    expect(list.body.map((m: { email: string; status: string }) => [m.email, m.status])).toEqual([['ann@example.com', 'active'], ['bob@example.com', 'inactive']]);
    expect((await call(t, 'GET', '/api/me', undefined, bobToken)).status).toBe(401);
  });

  test('removing someone who is not a member is 404 and adds nobody', async () => {
    const t = await buildTestApp();
    const { program, token } = await memberOf(t);
    const response = await call(t, 'POST', `/api/programs/${program.id}/members/remove`, { email: 'nobody@example.com' }, token);
    expect(response.status).toBe(404);
    expect(response.body.error.message).toBe(`nobody@example.com is not a member of program ${program.id}`);
    expect((await call(t, 'GET', `/api/programs/${program.id}/members`, undefined, token)).body).toHaveLength(1);
  });
});

describe('the partners of a program', () => {
  test('q finds partners by a part of their name or e-mail in any case; % and _ are plain characters', async () => {
    const t = await buildTestApp();
    const { program, token } = await memberOf(t);
    for (const [name, email] of [['Alice Martin', 'alice@shop.example'], ['Bruno 100%', 'bruno_b@example.org']]) {
      const partner = await t.partner({ name, email });
      await t.enroll(program.id, partner.id);
    }
    const names = async (q: string) =>
      (await call(t, 'GET', `/api/programs/${program.id}/partners?q=${encodeURIComponent(q)}`, undefined, token)).body.map((p: { name: string }) => p.name);
    expect(await names('MARTIN')).toEqual(['Alice Martin']);
    expect(await names('example.org')).toEqual(['Bruno 100%']);
    expect(await names('%')).toEqual(['Bruno 100%']);
    expect(await names('o_b')).toEqual(['Bruno 100%']);
    expect(await names('zzz')).toEqual([]);
    expect(await names('partner')).toEqual(['Partner']);
    const all = await call(t, 'GET', `/api/programs/${program.id}/partners`, undefined, token);
    expect(all.body[0]).toEqual({
      partnerId: program.partnerId, name: 'Partner', email: 'partner1@example.com', payoutMethod: null, refCode: program.refCode, status: 'active', enrolledAt: expect.any(String),
    });
  });

  test('an empty or over-long q is 400 invalid_request', async () => {
    const t = await buildTestApp();
    const { program, token } = await memberOf(t);
    expect((await call(t, 'GET', `/api/programs/${program.id}/partners?q=%20`, undefined, token)).status).toBe(400);
    expect((await call(t, 'GET', `/api/programs/${program.id}/partners?q=${'a'.repeat(256)}`, undefined, token)).status).toBe(400);
  });

  test("a partner's links for a member; a partner not enrolled is 404", async () => {
    const t = await buildTestApp();
    const { program, token } = await memberOf(t);
    const links = await call(t, 'GET', `/api/programs/${program.id}/partners/${program.partnerId}`, undefined, token);
    expect(links).toEqual({
      status: 200,
      body: { programId: program.id, partnerId: program.partnerId, refCode: program.refCode, status: 'active', linkPath: `/r/${program.refCode}`, landingUrl: null, viaUrl: null },
    });
    const other = await t.partner();
    expect((await call(t, 'GET', `/api/programs/${program.id}/partners/${other.id}`, undefined, token)).status).toBe(404);
  });
});
