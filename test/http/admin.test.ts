import { describe, expect, test } from 'vitest';
import { sha256 } from '../../src/domain/secrets.js';
import { ADMIN_TOKEN, buildTestApp, T0 } from '../helpers/app.js';

describe('provisioning API (/api/admin)', () => {
  test('program create: defaults (20 %, 90-day window, 30 hold days, every renewal), keys and webhook secret', async () => {
    const t = await buildTestApp();
    const program = await t.admin('POST', '/programs', { name: 'Acme' });
    expect(program).toEqual({
      id: 1,
      name: 'Acme',
      commission: { type: 'percent', percent: 20 },
      attributionWindowDays: 90,
      holdDays: 30,
      recurringMonths: null,
      webhookSecret: expect.stringMatching(/^whsec_/),
      createdAt: T0,
      productRules: [],
      approval: 'auto',
      minPayoutCents: 0,
      landingUrl: null,
      fraudRules: { selfReferral: 'hold', disposableEmail: 'flag', fastConversion: 'flag', refundRate: 'flag' },
      stripeApiKeySet: false,
      applicationsOpen: true,
      autoApprove: false,
      apiKey: expect.stringMatching(/^pk_live_[A-Za-z0-9_-]{32}$/),
      testApiKey: expect.stringMatching(/^pk_test_[A-Za-z0-9_-]{32}$/),
    });
  });

  test('program create with every option', async () => {
    const t = await buildTestApp();
    const program = await t.admin('POST', '/programs', {
      name: 'Flat', commissionFlatCents: 500, attributionWindowDays: 30, holdDays: 0, recurringMonths: 12, landingUrl: 'https://shop.example/',
    });
    expect(program).toMatchObject({
      commission: { type: 'flat', flatCents: 500 }, attributionWindowDays: 30, holdDays: 0, recurringMonths: 12, landingUrl: 'https://shop.example/',
    });
  });

  test.each([
    ['both commission kinds', { commissionPercent: 10, commissionFlatCents: 100 }],
    ['a zero percentage', { commissionPercent: 0 }],
    ['over 100 %', { commissionPercent: 101 }],
    ['three decimals', { commissionPercent: 12.345 }],
    ['a negative window', { attributionWindowDays: -1 }],
    ['no name', { name: '' }],
  ])('program create with %s: 400 invalid_request, nothing created', async (_name, body) => {
    const t = await buildTestApp();
    const response = await t.app.inject({
      method: 'POST', url: '/api/admin/programs', payload: { name: 'X', ...body }, headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_request');
    expect(await t.count('programs')).toBe(0);
  });

  test('program list and show never include an API key; show includes product rules', async () => {
    const t = await buildTestApp();
    const created = await t.admin('POST', '/programs', { name: 'Acme' });
    await t.admin('POST', `/programs/${created.id}/rules`, { productId: 'pro', commissionPercent: 30 });
    await t.admin('POST', `/programs/${created.id}/rules`, { productId: 'pro', commissionFlatCents: 250 });
    const list = await t.app.inject({ method: 'GET', url: '/api/admin/programs', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const show = await t.app.inject({ method: 'GET', url: `/api/admin/programs/${created.id}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    for (const response of [list, show]) {
      expect(response.body).not.toContain(created.apiKey);
      expect(response.body).not.toContain(created.testApiKey);
    }
    expect(list.json()).toHaveLength(1);
    expect(show.json().productRules).toEqual([{ programId: 1, productId: 'pro', commission: { type: 'flat', flatCents: 250 } }]);
  });

  test('unknown program: 404 not_found', async () => {
    const t = await buildTestApp();
    const response = await t.app.inject({ method: 'GET', url: '/api/admin/programs/99', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({ data: null, error: { status: 404, name: 'NotFoundError', message: 'Program 99 not found', details: null, code: 'not_found' } });
  });

  test('API keys are stored only as SHA-256 hashes with a display prefix', async () => {
    const t = await buildTestApp();
    const program = await t.admin('POST', '/programs', { name: 'Acme' });
    const rows = await t.store.read((sql) => sql.all<Record<string, unknown>>('SELECT * FROM api_keys ORDER BY id'));
    expect(rows.map((r) => r.key_hash)).toEqual([sha256(program.apiKey), sha256(program.testApiKey)]);
    expect(JSON.stringify(rows)).not.toContain(program.apiKey);
    expect(rows[0].prefix).toBe(program.apiKey.slice(0, 12));
  });

  test('key create, list (no secrets) and retire', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const created = await t.admin('POST', `/programs/${program.id}/keys`, { test: true });
    expect(created).toEqual({ id: 3, apiKey: expect.stringMatching(/^pk_test_/), mode: 'test' });
    expect(await t.admin('POST', `/programs/${program.id}/keys/3/retire`)).toEqual({ id: 3, status: 'retired' });
    const keys = await t.admin('GET', `/programs/${program.id}/keys`);
    expect(keys.map((k: { id: number; mode: string; status: string }) => [k.id, k.mode, k.status])).toEqual([
      [1, 'live', 'active'], [2, 'test', 'active'], [3, 'test', 'retired'],
    ]);
    expect(JSON.stringify(keys)).not.toContain(created.apiKey);
    const retired = await t.post('/api/v1/track/sale', {}, created.apiKey);
    expect(retired.json().error.code).toBe('api_key_rotation_required');
  });

  test("retiring another program's key is 404", async () => {
    const t = await buildTestApp();
    const a = await t.program();
    await t.program();
    const response = await t.app.inject({ method: 'POST', url: `/api/admin/programs/${a.id}/keys/3/retire`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(response.statusCode).toBe(404);
    // Key 3 is the other program's live key: still active.
    expect((await t.admin('GET', '/programs/2/keys')).find((k: { id: number }) => k.id === 3)).toMatchObject({ id: 3, status: 'active' });
  });

  test('partners: unique e-mail (409), enrollment once per program (409), unknown partner or program (404)', async () => {
    const t = await buildTestApp();
    await t.admin('POST', '/programs', { name: 'Acme' });
    const partner = await t.admin('POST', '/partners', { name: 'Jane', email: 'Jane@Example.com' });
    expect(partner).toEqual({ id: 1, name: 'Jane', email: 'jane@example.com', payoutMethod: null, payoutEmail: null, status: 'active' });
    const call = (url: string, payload: unknown) =>
      t.app.inject({ method: 'POST', url: `/api/admin${url}`, payload: payload as object, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect((await call('/partners', { name: 'Other', email: 'jane@example.com' })).statusCode).toBe(409);
    const enrollment = await t.admin('POST', '/programs/1/partners', { partnerId: 1 });
    expect(enrollment).toEqual({ id: 1, programId: 1, partnerId: 1, refCode: expect.stringMatching(/^[a-z2-9]{10}$/), createdAt: T0 });
    expect((await call('/programs/1/partners', { partnerId: 1 })).statusCode).toBe(409);
    expect((await call('/programs/1/partners', { partnerId: 9 })).statusCode).toBe(404);
    expect((await call('/programs/9/partners', { partnerId: 1 })).statusCode).toBe(404);
  });

  test('members: add, remove (inactive), re-add; removing a non-member is 404', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    expect(await t.admin('POST', `/programs/${program.id}/members`, { email: 'Ann@Example.com' })).toEqual({ userId: 1, programId: 1, status: 'active' });
    expect(await t.admin('POST', `/programs/${program.id}/members/remove`, { email: 'ann@example.com' })).toEqual({ userId: 1, programId: 1, status: 'inactive' });
    expect(await t.admin('POST', `/programs/${program.id}/members`, { email: 'ann@example.com' })).toEqual({ userId: 1, programId: 1, status: 'active' });
    const response = await t.app.inject({
      method: 'POST', url: `/api/admin/programs/${program.id}/members/remove`, payload: { email: 'bob@example.com' }, headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(response.statusCode).toBe(404);
    expect(await t.count('users')).toBe(1);
  });

  test('sessions: hashed token, expiry from the clock; unknown user is 404', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    await t.admin('POST', `/programs/${program.id}/members`, { email: 'ann@example.com' });
    const session = await t.admin('POST', '/sessions', { email: 'ann@example.com', ttlHours: 8 });
    expect(session).toEqual({
      token: expect.stringMatching(/^pks_/), expiresAt: '2026-03-01T20:00:00.000Z',
      signInCode: expect.stringMatching(/^pkc_[\w-]{43}$/), signInCodeExpiresAt: '2026-03-01T12:15:00.000Z',
    });
    const stored = await t.store.read((sql) => sql.one<{ token_hash: string }>('SELECT token_hash FROM sessions'));
    expect(stored!.token_hash).toBe(sha256(session.token));
    const unknown = await t.app.inject({
      method: 'POST', url: '/api/admin/sessions', payload: { email: 'nobody@example.com' }, headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(unknown.statusCode).toBe(404);
  });
});

describe('service endpoints', () => {
  test('GET /healthz', async () => {
    const t = await buildTestApp();
    const response = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ok', now: T0 });
  });

  test('GET /openapi.json is generated from the route schemas', async () => {
    const t = await buildTestApp();
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(doc.openapi).toMatch(/^3\./);
    const sale = doc.paths['/api/v1/track/sale'].post;
    const schema = sale.requestBody.content['application/json'].schema;
    expect(Object.keys(schema.properties)).toEqual(expect.arrayContaining(['transaction_id', 'amount_cents', 'customer_key', 'click_id', 'currency', 'occurred_at']));
    expect(schema.properties.provider.enum).toContain('paddle');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/track/click', '/api/v1/track/lead', '/api/admin/programs']));
  });

  // What each route takes besides its JSON 200 body (or its 204 without one); a route missing here fails the test below.
  const REQUESTS: Record<string, { params?: string[]; query?: string[]; body?: true; noContent?: true; accepted?: true; file?: string }> = {
    'GET /api/admin/backup': { file: 'application/octet-stream' },
    'POST /api/v1/track/click': { body: true },
    'POST /api/v1/track/lead': { body: true },
    'POST /api/v1/track/sale': { body: true },
    'POST /api/v1/track/refund': { body: true },
    'POST /api/v1/webhooks/stripe/{programId}': { params: ['programId'], body: true },
    'GET /api/tracking/performance/{programId}': { params: ['programId'], query: ['period', 'dateFrom', 'dateTo'] },
    'GET /api/tracking/performance/{programId}/partners': { params: ['programId'], query: ['period', 'dateFrom', 'dateTo'] },
    'POST /api/admin/programs': { body: true },
    'GET /api/admin/programs': {},
    'GET /api/admin/programs/{programId}': { params: ['programId'] },
    'PATCH /api/admin/programs/{programId}': { params: ['programId'], body: true },
    'PATCH /api/admin/partners/{partnerId}': { params: ['partnerId'], body: true },
    'POST /api/admin/programs/{programId}/rules': { params: ['programId'], body: true },
    'POST /api/admin/programs/{programId}/keys': { params: ['programId'], body: true },
    'GET /api/admin/programs/{programId}/keys': { params: ['programId'] },
    'POST /api/admin/programs/{programId}/keys/{keyId}/retire': { params: ['programId', 'keyId'] },
    'POST /api/admin/partners': { body: true },
    'POST /api/admin/programs/{programId}/partners': { params: ['programId'], body: true },
    'GET /api/admin/programs/{programId}/partners/{partnerId}': { params: ['programId', 'partnerId'] },
    'POST /api/admin/programs/{programId}/members': { params: ['programId'], body: true },
    'POST /api/admin/programs/{programId}/members/remove': { params: ['programId'], body: true },
    'POST /api/admin/sessions': { body: true },
    'POST /api/admin/sessions/revoke': { body: true },
    'POST /api/sessions/exchange': { body: true },
    'POST /api/sessions/email-link': { body: true, accepted: true },
    'GET /api/public/programs/{programId}': { params: ['programId'] },
    'POST /api/public/programs/{programId}/applications': { params: ['programId'], body: true, accepted: true },
    'GET /api/programs/{programId}/applications': { params: ['programId'], query: ['status'] },
    'POST /api/applications/{applicationId}/approve': { params: ['applicationId'] },
    'POST /api/applications/{applicationId}/reject': { params: ['applicationId'], body: true },
    'GET /api/admin/programs/{programId}/webhook-events': { params: ['programId'], query: ['limit'] },
    'POST /api/admin/programs/{programId}/webhook-secret': { params: ['programId'], body: true },
    'POST /api/admin/demo': { body: true },
    'GET /api/programs/{programId}/commissions': { params: ['programId'], query: ['limit', 'offset', 'status', 'partnerId'] },
    'POST /api/programs/{programId}/commissions/approve': { params: ['programId'], body: true },
    'POST /api/programs/{programId}/commissions/reject': { params: ['programId'], body: true },
    'GET /api/programs/{programId}/payouts/preview': { params: ['programId'] },
    'POST /api/programs/{programId}/payouts': { params: ['programId'] },
    'GET /api/programs/{programId}/payouts': { params: ['programId'], query: ['status'] },
    'GET /api/payouts/{payoutId}': { params: ['payoutId'] },
    'POST /api/payouts/{payoutId}/mark-paid': { params: ['payoutId'] },
    'POST /api/payouts/{payoutId}/cancel': { params: ['payoutId'] },
    'POST /api/programs/{programId}/webhook-endpoints': { params: ['programId'], body: true },
    'GET /api/programs/{programId}/webhook-endpoints': { params: ['programId'] },
    'PATCH /api/webhook-endpoints/{endpointId}': { params: ['endpointId'], body: true },
    'DELETE /api/webhook-endpoints/{endpointId}': { params: ['endpointId'] },
    'POST /api/webhook-endpoints/{endpointId}/rotate-secret': { params: ['endpointId'] },
    'POST /api/webhook-endpoints/{endpointId}/test': { params: ['endpointId'] },
    'GET /api/webhook-endpoints/{endpointId}/deliveries': { params: ['endpointId'], query: ['status', 'limit'] },
    'POST /api/webhook-events/{eventId}/redeliver': { params: ['eventId'], body: true },
    'POST /api/payout-batches/{batchId}/mark-paid': { params: ['batchId'] },
    'GET /api/payout-batches/{batchId}/export': { params: ['batchId'], query: ['format', 'currency'] },
    'GET /api/programs/{programId}/export': { params: ['programId'], query: ['table', 'format', 'dateFrom', 'dateTo', 'includeTest'] },
    'GET /api/programs/{programId}/partners': { params: ['programId'], query: ['q'] },
    'GET /api/programs/{programId}/partners/{partnerId}': { params: ['programId', 'partnerId'] },
    'GET /api/programs/{programId}/settings': { params: ['programId'] },
    'PATCH /api/programs/{programId}/settings': { params: ['programId'], body: true },
    'GET /api/programs/{programId}/keys': { params: ['programId'] },
    'POST /api/programs/{programId}/keys': { params: ['programId'], body: true },
    'POST /api/programs/{programId}/keys/{keyId}/retire': { params: ['programId', 'keyId'] },
    'GET /api/programs/{programId}/members': { params: ['programId'] },
    'POST /api/programs/{programId}/members': { params: ['programId'], body: true },
    'POST /api/programs/{programId}/members/remove': { params: ['programId'], body: true },
    'POST /api/admin/partners/{partnerId}/sessions': { params: ['partnerId'], body: true },
    'GET /api/me': {},
    'DELETE /api/session': { noContent: true },
    'GET /api/portal/me': {},
    'GET /api/portal/programs/{programId}/performance': { params: ['programId'], query: ['period', 'dateFrom', 'dateTo'] },
    'GET /api/portal/programs/{programId}/commissions': { params: ['programId'], query: ['limit', 'offset', 'status'] },
    'GET /api/portal/programs/{programId}/payouts': { params: ['programId'] },
    'POST /api/programs/{programId}/codes': { params: ['programId'], body: true },
    'GET /api/programs/{programId}/codes': { params: ['programId'], query: ['partnerId'] },
    'DELETE /api/programs/{programId}/codes/{code}': { params: ['programId', 'code'] },
    'POST /api/programs/{programId}/groups': { params: ['programId'], body: true },
    'GET /api/programs/{programId}/groups': { params: ['programId'] },
    'PATCH /api/programs/{programId}/groups/{groupId}': { params: ['programId', 'groupId'], body: true },
    'DELETE /api/programs/{programId}/groups/{groupId}': { params: ['programId', 'groupId'], query: ['moveTo'] },
    'PUT /api/programs/{programId}/partners/{partnerId}/group': { params: ['programId', 'partnerId'], body: true },
    'GET /api/programs/{programId}/group-moves': { params: ['programId'], query: ['partnerId'] },
    'GET /api/programs/{programId}/preview': { params: ['programId'], query: ['period', 'commissionPercent', 'commissionFlatCents', 'groupId', 'recurringMonths', 'everyRenewal'] },
    'GET /api/programs/{programId}/fraud-events': { params: ['programId'], query: ['status'] },
    'POST /api/programs/{programId}/fraud/release': { params: ['programId'], body: true },
    'POST /api/programs/{programId}/fraud/reject': { params: ['programId'], body: true },
    'POST /api/programs/{programId}/stripe/reconcile': { params: ['programId'], body: true },
  };

  type Operation = {
    parameters?: Array<{ in: string; name: string; schema: object }>;
    requestBody?: { content: Record<string, { schema: object }> };
    responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
  };

  test('GET /openapi.json: every route has a 200 body schema (202 for the two that always accept) and a schema for each path parameter, query parameter and body it takes', async () => {
    const t = await buildTestApp();
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, Operation>> };
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => [`${method.toUpperCase()} ${path}`, operation] as const),
    );
    expect(operations.map(([route]) => route).sort()).toEqual(Object.keys(REQUESTS).sort());
    for (const [route, operation] of operations) {
      const expected = REQUESTS[route];
      if (expected.noContent) {
        expect(Object.keys(operation.responses).filter((status) => status.startsWith('2')), `${route}: 204 only`).toEqual(['204']);
      } else if (expected.accepted) {
        expect(Object.keys(operation.responses).filter((status) => status.startsWith('2')), `${route}: 202 only`).toEqual(['202']);
        expect(operation.responses['202']?.content?.['application/json']?.schema?.type, `${route}: 202 body schema`).toBe('object');
      } else {
        const ok = operation.responses['200']?.content?.[expected.file ?? 'application/json']?.schema;
        expect(ok?.type ?? ok?.anyOf ?? ok?.oneOf, `${route}: 200 body schema`).toBeDefined();
      }
      const named = (where: string) => (operation.parameters ?? []).filter((p) => p.in === where);
      expect(named('path').map((p) => p.name), `${route}: path parameters`).toEqual(expected.params ?? []);
      expect(named('query').map((p) => p.name), `${route}: query parameters`).toEqual(expected.query ?? []);
      for (const parameter of operation.parameters ?? []) expect(Object.keys(parameter.schema), `${route}: ${parameter.name}`).not.toEqual([]);
      expect(operation.requestBody?.content['application/json']?.schema !== undefined, `${route}: request body schema`).toBe(expected.body ?? false);
    }
  });

  test('unknown routes answer 404 in the platform envelope', async () => {
    const t = await buildTestApp();
    const response = await t.app.inject({ method: 'GET', url: '/nope' });
    expect(response.statusCode).toBe(404);
    expect(response.json().error).toMatchObject({ code: 'not_found', status: 404 });
  });
});
