import { describe, expect, test } from 'vitest';
import { buildApp, ROUTE_MODULES, routeModulesFor } from '../../src/app.js';
import { fixedClock } from '../../src/clock.js';
import { dataDir } from '../../src/config.js';
import { injectTransport, openInProcessApp, openLocalApp } from '../../src/local.js';
import type { ApiRequest, Transport } from '../../src/sdk/transport.js';
import { buildTestApp, T0 } from '../helpers/app.js';
import { tempDataDir } from '../helpers/cli.js';

// The CLI's in-process app registers only the route modules a request's path needs
// (docs/architecture.md#the-in-process-app); it must answer every request as the whole app does.

describe('route modules by path', () => {
  test.each([
    ['/api/admin/programs', ['admin']],
    ['/api/admin/programs/1/partners/2', ['admin']],
    ['/api/admin/demo', ['admin', 'demo']],
    ['/api/tracking/performance/1?period=30d', ['reports']],
    ['/api/tracking/performance/1/partners', ['reports']],
    // Modules may share a prefix: a request under it loads both, and each route answers its own paths.
    ['/api/programs/1/commissions?status=pending', ['payouts', 'outbound-webhooks', 'stripe-reconcile', 'fraud', 'promotion-codes', 'groups', 'applications', 'workspace', 'exports']],
    ['/api/programs/1/export?table=clicks', ['payouts', 'outbound-webhooks', 'stripe-reconcile', 'fraud', 'promotion-codes', 'groups', 'applications', 'workspace', 'exports']],
    ['/api/webhook-endpoints/1/deliveries', ['outbound-webhooks']],
    ['/api/me', ['sessions']],
    ['/api/session', ['sessions']],
    ['/api/portal/programs/1/payouts', ['portal']],
    ['/api/payouts/3/mark-paid', ['payouts']],
    ['/api/payout-batches/2/export?format=csv', ['payouts']],
    ['/api/v1/track/sale', ['tracking']],
    ['/r/acme-ann', ['tracking']],
    ['/pk.js?program=1', ['script']],
    ['/api/v1/webhooks/stripe/1', ['webhooks']],
    ['/healthz', []],
    ['/api/nowhere', []],
  ])('%s: %j', (path, expected) => {
    expect(routeModulesFor(path).map((m) => m.name)).toEqual(expected);
  });

  test("a route outside its module's paths fails the app's build", async () => {
    const t = await buildTestApp();
    const reports = ROUTE_MODULES.find((m) => m.name === 'reports')!;
    await expect(buildApp(t.deps, [{ ...reports, paths: ['/api/tracking/performance/:programId/partners'] }])).rejects.toThrow(
      'route /api/tracking/performance/:programId is outside the paths of route module reports',
    );
  });
});

describe('the in-process app answers as the whole app', () => {
  test('the same status, headers and body for successes, validation errors, refusals and unknown paths, requests sent at once', async () => {
    const dir = dataDir(tempDataDir());
    const clock = fixedClock(T0);
    const admin = (token: string) => ({ authorization: `Bearer ${token}` });
    const requests = (token: string): ApiRequest[] => [
      { method: 'GET', path: '/api/admin/programs', headers: admin(token) },
      { method: 'POST', path: '/api/admin/programs', headers: admin(token), body: { name: '', commissionPercent: 'ten' } },
      { method: 'GET', path: '/api/admin/programs' },
      { method: 'GET', path: '/api/tracking/performance/1?period=7d', headers: admin(token) },
      { method: 'GET', path: '/api/tracking/performance/1?period=fortnight', headers: admin(token) },
      { method: 'GET', path: '/api/tracking/performance/99', headers: admin(token) },
      { method: 'POST', path: '/api/v1/track/sale', body: { transaction_id: 'tx_1', amount_cents: 100 } },
      { method: 'GET', path: '/api/payouts/abc', headers: admin(token) },
      { method: 'GET', path: '/api/nowhere', headers: admin(token) },
      { method: 'GET', path: '/healthz' },
    ];
    // Every header but the date, and Vary, which only the CORS plugin sets (docs/architecture.md#the-in-process-app).
    const answers = async (transport: Transport, token: string) =>
      (await Promise.all(requests(token).map(transport))).map(({ status, headers: { date: _, vary: __, ...headers }, body }) => ({ status, headers, body }));

    const inProcess = await openInProcessApp(dir, clock);
    let fromInProcess: Awaited<ReturnType<typeof answers>>;
    try {
      await inProcess.transport({ method: 'POST', path: '/api/admin/programs', headers: admin(inProcess.adminToken), body: { name: 'Acme' } });
      fromInProcess = await answers(inProcess.transport, inProcess.adminToken);
      // The one thing left out: the OpenAPI document, which no command asks for.
      expect((await inProcess.transport({ method: 'GET', path: '/openapi.json' })).status).toBe(404);
    } finally {
      await inProcess.close();
    }
    const whole = await openLocalApp(dir, clock);
    try {
      expect(fromInProcess).toEqual(await answers(injectTransport(whole.app), whole.adminToken));
    } finally {
      await whole.close();
    }
    expect(fromInProcess.map((a) => a.status)).toEqual([200, 400, 401, 200, 400, 404, 401, 400, 404, 200]);
    expect(fromInProcess[1].body).toMatchObject({ error: { code: 'invalid_request' } });
    expect(fromInProcess[8].body).toEqual({
      data: null,
      error: { code: 'not_found', name: 'NotFoundError', status: 404, message: 'No route for GET /api/nowhere', details: null },
    });
  });
});
