import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, type TestApp } from '../helpers/app.js';
import { REPORT_QUERIES, reportHistory } from '../helpers/history.js';
import { partnerSession, unauthorized } from '../helpers/route-auth.js';

/**
 * The partner portal's APIs (docs/pages.md#session-apis): a partner session reads its own rows only, its
 * numbers are its row of the per-partner report, and nothing it reads names a customer. Credentials
 * of every kind on every route: the shared authorization suite.
 */

const HOST = 'partners.example:8443';

function get(t: TestApp, url: string, token: string) {
  return t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}`, host: HOST } });
}

/**
 * The report tests' history (program A with partners p1, p2, p3; program B with its own partner), and
 * p2 also enrolled in B, where it brought a customer with an e-mail who paid 12.34 EUR today; B has a
 * landing URL.
 */
async function history() {
  const h = await reportHistory();
  const { t, b, p2 } = h;
  const landing = await t.app.inject({
    method: 'PATCH', url: `/api/admin/programs/${b.id}`, payload: { landingUrl: 'https://shop.example/b?x=1' }, headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  expect(landing.statusCode).toBe(200);
  const p2b = await t.enroll(b.id, p2.partnerId);
  const click = await t.click({ refCode: p2b.refCode });
  await t.lead(b, 'cust_secret_b', { click_id: click, email: 'secret.buyer@customer.example', name: 'Secret Buyer' });
  await t.sale(b, { transaction_id: 'b-p2', amount_cents: 1234, currency: 'EUR', customer_key: 'cust_secret_b' });
  const session = async (partnerId: number, ttlHours?: number) => (await partnerSession(t, partnerId, ttlHours)).token;
  return { ...h, p2b, session };
}

const zeros = { clicks: 0, leads: 0, conversions: 0, sales: 0, revenue: 0, commission: 0 };
const day = (date: string, values: Partial<typeof zeros> = {}) => ({ date, ...zeros, ...values });

describe('GET /api/portal/me', () => {
  test("the partner and each of its programs with its links on the request's address; the via link only with a landing URL", async () => {
    const { t, a, b, p2, p2b, session } = await history();
    const response = await get(t, '/api/portal/me', await session(p2.partnerId));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      partner: { id: p2.partnerId, name: 'p2@example.com', email: 'p2@example.com' },
      programs: [
        { programId: a.id, name: 'Test program', refCode: p2.refCode, status: 'active', link: `http://${HOST}/r/${p2.refCode}`, viaLink: null },
        {
          programId: b.id, name: 'Other program', refCode: p2b.refCode, status: 'active', link: `http://${HOST}/r/${p2b.refCode}`,
          viaLink: `https://shop.example/b?x=1&via=${p2b.refCode}`,
        },
      ],
    });
  });
});

describe('GET /api/portal/programs/:programId/performance', () => {
  test('7d (the default): the partner\'s own days, exact, and its totals', async () => {
    const { t, a, p3, session } = await history();
    const response = await get(t, `/api/portal/programs/${a.id}/performance`, await session(p3.partnerId));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      data: {
        // c4 bought on 03-06 (25.00, 20 %), c5 is still a lead; p3's three clicks are from 03-06.
        totals: { clicks: 3, leads: 1, conversions: 1, sales: 1, revenue: 25, commission: 5 },
        daily: [
          day('2026-03-04'), day('2026-03-05'),
          day('2026-03-06', { clicks: 3, leads: 1, conversions: 1, sales: 1, revenue: 25, commission: 5 }),
          day('2026-03-07'), day('2026-03-08'), day('2026-03-09'), day('2026-03-10'),
        ],
      },
      meta: { programId: a.id, partnerId: p3.partnerId, from: '2026-03-04T00:00:00.000Z', to: '2026-03-10T23:59:59.999Z', period: '7d', currency: 'USD' },
    });
  });

  test('a partner in two programs reads each apart: its sale in B is not in A, and B is in euros', async () => {
    const { t, a, b, p2, session } = await history();
    const token = await session(p2.partnerId);
    const inB = (await get(t, `/api/portal/programs/${b.id}/performance?period=7d`, token)).json();
    expect(inB.data.totals).toEqual({ clicks: 1, leads: 0, conversions: 1, sales: 1, revenue: 12.34, commission: 2.47 });
    expect(inB.data.daily.at(-1)).toEqual(day('2026-03-10', { clicks: 1, conversions: 1, sales: 1, revenue: 12.34, commission: 2.47 }));
    expect(inB.meta).toEqual({ programId: b.id, partnerId: p2.partnerId, from: '2026-03-04T00:00:00.000Z', to: '2026-03-10T23:59:59.999Z', period: '7d', currency: 'EUR' });
    const inA = (await get(t, `/api/portal/programs/${a.id}/performance?period=7d`, token)).json();
    expect(inA.data.totals).toEqual({ clicks: 3, leads: 0, conversions: 1, sales: 1, revenue: 100.01, commission: 20 });
  });

  test.each(REPORT_QUERIES)("%s: each partner's totals are its row of the per-partner report, and its days add up to them", async (_name, query) => {
    const { t, a, p1, p2, p3, session } = await history();
    const report = (await get(t, `/api/tracking/performance/${a.id}/partners?${query}`, ADMIN_TOKEN)).json();
    for (const partner of [p1, p2, p3]) {
      const response = await get(t, `/api/portal/programs/${a.id}/performance?${query}`, await session(partner.partnerId));
      expect(response.statusCode).toBe(200);
      const { data, meta } = response.json();
      const { clicks, leads, conversions, sales, revenue, commission } = report.data.find((r: { partnerId: number }) => r.partnerId === partner.partnerId);
      expect(data.totals).toEqual({ clicks, leads, conversions, sales, revenue, commission });
      const sum = (field: keyof typeof zeros) => data.daily.reduce((total: number, d: typeof zeros) => total + Math.round(d[field] * 100), 0) / 100;
      expect(Object.fromEntries(Object.keys(zeros).map((f) => [f, sum(f as keyof typeof zeros)]))).toEqual(data.totals);
      expect({ from: meta.from, to: meta.to, period: meta.period }).toEqual({ from: report.meta.dateFrom, to: report.meta.dateTo, period: report.meta.period });
    }
  });

  test('the report\'s errors in its order: a bad query is 400 before an unknown program is 404', async () => {
    const { t, a, p1, session } = await history();
    const token = await session(p1.partnerId);
    const bad = await get(t, '/api/portal/programs/999/performance?dateFrom=2026-03-01', token);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'invalid_request', details: { fields: [{ field: 'dateTo', message: 'dateFrom and dateTo must be given together' }] } });
    const unknown = await get(t, '/api/portal/programs/999/performance', token);
    expect(unknown.json()).toEqual({ data: null, error: { status: 404, name: 'NotFoundError', message: 'Program 999 not found', details: null, code: 'not_found' } });
    expect((await get(t, `/api/portal/programs/${a.id}/performance?period=all`, token)).statusCode).toBe(200);
  });
});

describe('commissions and payouts', () => {
  test("a partner's commissions and payouts are its own, with amounts in currency units and no customer field", async () => {
    const { t, a, p1, session } = await history();
    let token = await session(p1.partnerId);
    const pending = await get(t, `/api/portal/programs/${a.id}/commissions`, token);
    // p1's sales, newest first: the renewal t1-r1 (03-08), t1 (49.99 on 03-04) and t2 (30.00 on 02-27), 20 % each, 30 hold days.
    expect(pending.json()).toEqual({
      data: [
        { id: 6, saleId: 6, type: 'sale', amount: 10, currency: 'USD', status: 'pending', createdAt: '2026-03-08T10:00:00.000Z', holdUntil: '2026-04-07T10:00:00.000Z', paidAt: null, payoutId: null },
        { id: 2, saleId: 2, type: 'sale', amount: 10, currency: 'USD', status: 'pending', createdAt: '2026-03-04T12:00:00.000Z', holdUntil: '2026-04-03T12:00:00.000Z', paidAt: null, payoutId: null },
        { id: 1, saleId: 1, type: 'sale', amount: 6, currency: 'USD', status: 'pending', createdAt: '2026-02-27T10:00:00.000Z', holdUntil: '2026-03-29T10:00:00.000Z', paidAt: null, payoutId: null },
      ],
    });

    // Past every hold: the merchant pays every partner; p1 sees its payout only, and its commissions in it.
    t.clock.set('2026-04-10T00:00:00.000Z');
    token = await session(p1.partnerId); // a session lasts 30 days at most
    const batch = await t.app.inject({ method: 'POST', url: `/api/programs/${a.id}/payouts`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(batch.json().payouts).toHaveLength(3);
    const mine = batch.json().payouts.find((p: { partnerId: number }) => p.partnerId === p1.partnerId);
    const payouts = await get(t, `/api/portal/programs/${a.id}/payouts`, token);
    expect(payouts.json()).toEqual({
      data: [{ id: mine.id, batchId: batch.json().batchId, currency: 'USD', amount: 26, status: 'processing', createdAt: '2026-04-10T00:00:00.000Z', paidAt: null, commissionCount: 3 }],
    });
    const processing = await get(t, `/api/portal/programs/${a.id}/commissions?status=processing`, token);
    expect(processing.json().data.map((c: { id: number; payoutId: number }) => [c.id, c.payoutId])).toEqual([[6, mine.id], [2, mine.id], [1, mine.id]]);
    expect((await get(t, `/api/portal/programs/${a.id}/commissions?status=pending`, token)).json()).toEqual({ data: [] });
  });

  test("the partner's commissions in pages: the page's rows, the number matching in partnerkit-total-count; bad values 400 naming the field", async () => {
    const { t, a, p1, session } = await history();
    const token = await session(p1.partnerId);
    const page = async (query: string) => {
      const response = await get(t, `/api/portal/programs/${a.id}/commissions${query}`, token);
      expect(response.statusCode).toBe(200);
      return [response.json().data.map((c: { id: number }) => c.id), response.headers['partnerkit-total-count']];
    };
    expect(await page('')).toEqual([[6, 2, 1], '3']);
    expect(await page('?limit=2')).toEqual([[6, 2], '3']);
    expect(await page('?limit=2&offset=2')).toEqual([[1], '3']);
    expect(await page('?limit=2&offset=3')).toEqual([[], '3']);
    expect(await page('?status=paid&limit=2')).toEqual([[], '0']);
    for (const [query, field] of [['limit=0', 'limit'], ['limit=1001', 'limit'], ['offset=-1', 'offset'], ['offset=a', 'offset']]) {
      const bad = await get(t, `/api/portal/programs/${a.id}/commissions?${query}`, token);
      expect([bad.statusCode, bad.json().error.code, bad.json().error.details.fields.map((f: { field: string }) => f.field)]).toEqual([400, 'invalid_request', [field]]);
    }
  });

  test('no answer of the portal names a customer: no e-mail, customer key or customer name', async () => {
    const { t, a, b, p2, session } = await history();
    const token = await session(p2.partnerId);
    const urls = ['/api/portal/me'];
    for (const program of [a.id, b.id]) {
      urls.push(`/api/portal/programs/${program}/commissions`, `/api/portal/programs/${program}/payouts`);
      for (const period of ['7d', '30d', '90d', 'all']) urls.push(`/api/portal/programs/${program}/performance?period=${period}`);
    }
    for (const url of urls) {
      const response = await get(t, url, token);
      expect(response.statusCode, url).toBe(200);
      expect(response.body, url).not.toMatch(/customer\.example|cust_secret|Secret Buyer|customer/i);
    }
  });
});

describe('sessions', () => {
  test('an expired partner session is 401 on the portal, at its expiry and after', async () => {
    const { t, a, p1 } = await history();
    const { token, expiresAt } = await partnerSession(t, p1.partnerId, 2);
    expect(expiresAt).toBe('2026-03-10T17:00:00.000Z');
    t.clock.set('2026-03-10T16:59:59.999Z');
    expect((await get(t, `/api/portal/programs/${a.id}/commissions`, token)).statusCode).toBe(200);
    t.clock.set(expiresAt);
    const expired = await get(t, `/api/portal/programs/${a.id}/commissions`, token);
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toEqual(unauthorized('No valid partner session: the token is unknown or expired (only partner sessions are accepted here)'));
  });

  test('sign-out: DELETE /api/session is 204, then the token is refused everywhere; other sessions of the partner stay', async () => {
    const { t, p1, session } = await history();
    const token = await session(p1.partnerId);
    const other = await session(p1.partnerId);
    const out = await t.app.inject({ method: 'DELETE', url: '/api/session', headers: { authorization: `Bearer ${token}` } });
    expect(out.statusCode).toBe(204);
    expect(out.body).toBe('');
    expect((await get(t, '/api/portal/me', token)).json()).toEqual(
      unauthorized('No valid partner session: the token is unknown or expired (only partner sessions are accepted here)'),
    );
    const again = await t.app.inject({ method: 'DELETE', url: '/api/session', headers: { authorization: `Bearer ${token}` } });
    expect(again.json()).toEqual(unauthorized('No session to sign out: the token is unknown or expired (the admin token and API keys are not sessions)'));
    expect((await get(t, '/api/portal/me', other)).statusCode).toBe(200);
    expect(await t.count('partner_sessions')).toBe(1);
  });

  test('two sign-outs of one token at once: one is 204, the other 401', async () => {
    const { t, p1, session } = await history();
    const token = await session(p1.partnerId);
    const signOut = () => t.app.inject({ method: 'DELETE', url: '/api/session', headers: { authorization: `Bearer ${token}` } });
    const statuses = (await Promise.all([signOut(), signOut()])).map((r) => r.statusCode).sort();
    expect(statuses).toEqual([204, 401]);
    expect(await t.count('partner_sessions')).toBe(0);
  });

  test("GET /api/me: a member's user and active programs; the admin token sees every program; sign-out ends a dashboard session", async () => {
    const { t, a, b } = await history();
    await t.admin('POST', `/programs/${b.id}/members`, { email: 'Ann@Example.com' });
    await t.admin('POST', `/programs/${a.id}/members`, { email: 'ann@example.com' });
    await t.admin('POST', `/programs/${b.id}/members/remove`, { email: 'ann@example.com' });
    const { token } = await t.admin('POST', '/sessions', { email: 'ann@example.com' });
    const me = await get(t, '/api/me', token);
    const now = t.clock.now().toISOString();
    expect(me.json()).toEqual({ user: { id: 1, email: 'ann@example.com' }, admin: false, programs: [{ id: a.id, name: 'Test program' }], now });
    expect((await get(t, '/api/me', ADMIN_TOKEN)).json()).toEqual({
      user: null, admin: true, programs: [{ id: a.id, name: 'Test program' }, { id: b.id, name: 'Other program' }], now,
    });
    const out = await t.app.inject({ method: 'DELETE', url: '/api/session', headers: { authorization: `Bearer ${token}` } });
    expect(out.statusCode).toBe(204);
    expect((await get(t, '/api/me', token)).statusCode).toBe(401);
  });
});
