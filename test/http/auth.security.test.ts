import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, type ProgramFixture, type TestApp } from '../helpers/app.js';
import { programFields, saleFields } from '../helpers/factories.js';
import { runCommonRouteTests, servedRoutes, type AuthenticatedRoute } from '../helpers/route-auth.js';

const ADMIN = '/api/admin';
const programUrl = (program: ProgramFixture, rest = '') => `${ADMIN}/programs/${program.id}${rest}`;
const member = { email: 'ann@example.com' };

/** A sale whose commission is approved (its hold over): commission 1. */
async function approvedCommission(t: TestApp, program: ProgramFixture): Promise<void> {
  await t.lead(program);
  await t.sale(program);
  t.clock.advanceDays(31);
}

/** Payout 1 in batch 1, processing. */
async function processingPayout(t: TestApp, program: ProgramFixture): Promise<void> {
  await approvedCommission(t, program);
  const response = await t.app.inject({ method: 'POST', url: `/api/programs/${program.id}/payouts`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(response.json().payouts).toHaveLength(1);
}

/** A webhook endpoint of the program; its id. */
async function webhookEndpoint(t: TestApp, program: ProgramFixture): Promise<number> {
  const response = await t.app.inject({
    method: 'POST', url: `/api/programs/${program.id}/webhook-endpoints`, payload: { url: 'https://example.com/hooks' }, headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return response.json().id;
}

/** Promotion code AUTH1 of the program's partner. */
async function promotionCode(t: TestApp, program: ProgramFixture): Promise<string> {
  const response = await t.app.inject({
    method: 'POST', url: `/api/programs/${program.id}/codes`, payload: { partnerId: program.partnerId, code: 'AUTH1' }, headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return response.json().code;
}

/** A group of the program (docs/groups.md#groups): its id. */
async function group(t: TestApp, program: ProgramFixture, name = 'Auth'): Promise<number> {
  const response = await t.app.inject({ method: 'POST', url: `/api/programs/${program.id}/groups`, payload: { name }, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return response.json().id;
}

/** A pending application to the program (docs/applications.md): its id. */
async function application(t: TestApp, program: ProgramFixture): Promise<number> {
  await t.app.inject({ method: 'POST', url: `/api/public/programs/${program.id}/applications`, payload: { name: 'Applicant', email: 'applicant@example.com' } });
  const list = await t.app.inject({ method: 'GET', url: `/api/programs/${program.id}/applications`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return list.json().data[0].id;
}

/** A commission held by the self-referral rule (its default mode, hold): the customer's e-mail is the partner's. */
async function heldCommission(t: TestApp, program: ProgramFixture): Promise<number> {
  await t.admin('PATCH', `/partners/${program.partnerId}`, { email: 'self@example.com' });
  await t.lead(program, 'cust_1', { email: 'self@example.com' });
  return (await t.sale(program)).commission_id;
}

/** Every route that takes a credential, with a request it accepts. A route missing here fails the test at the end. */
const ROUTES: AuthenticatedRoute[] = [
  {
    // Public for browsers; with a credential it is a server-side click and the credential must be the program's key.
    method: 'POST', route: '/api/v1/track/click', guard: 'optionalApiKey', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: '/api/v1/track/click', payload: { ref: program.refCode } }),
  },
  {
    method: 'POST', route: '/api/v1/track/lead', guard: 'apiKey', accepted: 200,
    prepareRequest: async (t, program) => ({ url: '/api/v1/track/lead', payload: { customer_key: 'cust_1', click_id: await t.click(program) } }),
    invalidRequest: () => ({ url: '/api/v1/track/lead', payload: { customer_key: '' } }),
  },
  {
    method: 'POST', route: '/api/v1/track/sale', guard: 'apiKey', accepted: 200,
    prepareRequest: async (t, program) => {
      await t.lead(program);
      return { url: '/api/v1/track/sale', payload: saleFields() };
    },
    invalidRequest: () => ({ url: '/api/v1/track/sale', payload: saleFields({ amount_cents: 'x' }) }),
  },
  {
    method: 'POST', route: '/api/v1/track/refund', guard: 'apiKey', accepted: 200,
    prepareRequest: async (t, program) => {
      // A live and a test sale of in_1: the live key refunds the one, the test key the other.
      await t.lead(program);
      await t.sale(program);
      await t.sale(program, {}, program.testApiKey);
      return { url: '/api/v1/track/refund', payload: { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 100 } };
    },
    invalidRequest: () => ({ url: '/api/v1/track/refund', payload: { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 0 } }),
  },
  {
    method: 'POST', route: `${ADMIN}/programs`, guard: 'admin', accepted: 200,
    prepareRequest: async () => ({ url: `${ADMIN}/programs`, payload: programFields() }),
    invalidRequest: () => ({ url: `${ADMIN}/programs`, payload: programFields({ name: '' }) }),
  },
  {
    // The test stores have no file to copy (in memory, or PostgreSQL): 501, past the authorization.
    method: 'GET', route: `${ADMIN}/backup`, guard: 'admin', accepted: 501,
    prepareRequest: async () => ({ url: `${ADMIN}/backup` }),
  },
  {
    method: 'GET', route: `${ADMIN}/programs`, guard: 'admin', accepted: 200,
    prepareRequest: async () => ({ url: `${ADMIN}/programs` }),
  },
  {
    method: 'PATCH', route: `${ADMIN}/programs/:programId`, guard: 'admin', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: programUrl(program), payload: { approval: 'manual', minPayoutCents: 5000 } }),
    invalidRequest: (program) => ({ url: programUrl(program), payload: {} }),
  },
  {
    method: 'PATCH', route: `${ADMIN}/partners/:partnerId`, guard: 'admin', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `${ADMIN}/partners/${program.partnerId}`, payload: { payoutMethod: 'paypal', payoutEmail: 'pay@example.com' } }),
    invalidRequest: (program) => ({ url: `${ADMIN}/partners/${program.partnerId}`, payload: { payoutMethod: 'cheque' } }),
  },
  {
    method: 'GET', route: `${ADMIN}/programs/:programId`, guard: 'admin', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: programUrl(program) }),
    invalidRequest: () => ({ url: `${ADMIN}/programs/abc` }),
  },
  {
    method: 'POST', route: `${ADMIN}/programs/:programId/rules`, guard: 'admin', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: programUrl(program, '/rules'), payload: { productId: 'pro', commissionPercent: 30 } }),
    invalidRequest: (program) => ({ url: programUrl(program, '/rules'), payload: { productId: 'pro' } }),
  },
  {
    method: 'POST', route: `${ADMIN}/programs/:programId/keys`, guard: 'admin', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: programUrl(program, '/keys'), payload: { test: true } }),
    invalidRequest: (program) => ({ url: programUrl(program, '/keys'), payload: { test: 'yes' } }),
  },
  {
    method: 'GET', route: `${ADMIN}/programs/:programId/keys`, guard: 'admin', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: programUrl(program, '/keys') }),
    invalidRequest: () => ({ url: `${ADMIN}/programs/abc/keys` }),
  },
  {
    method: 'POST', route: `${ADMIN}/programs/:programId/keys/:keyId/retire`, guard: 'admin', accepted: 200,
    prepareRequest: async (t, program) => {
      const key = await t.admin('POST', `/programs/${program.id}/keys`, {});
      return { url: programUrl(program, `/keys/${key.id}/retire`) };
    },
    invalidRequest: (program) => ({ url: programUrl(program, '/keys/0/retire') }),
  },
  {
    method: 'POST', route: `${ADMIN}/partners`, guard: 'admin', accepted: 200,
    prepareRequest: async () => ({ url: `${ADMIN}/partners`, payload: { name: 'New partner', email: 'new@example.com' } }),
    invalidRequest: () => ({ url: `${ADMIN}/partners`, payload: { name: 'New partner', email: 'not-an-email' } }),
  },
  {
    method: 'POST', route: `${ADMIN}/programs/:programId/partners`, guard: 'admin', accepted: 200,
    prepareRequest: async (t, program) => ({ url: programUrl(program, '/partners'), payload: { partnerId: (await t.partner()).id } }),
    invalidRequest: (program) => ({ url: programUrl(program, '/partners'), payload: { partnerId: 0 } }),
  },
  {
    method: 'GET', route: `${ADMIN}/programs/:programId/partners/:partnerId`, guard: 'admin', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: programUrl(program, `/partners/${program.partnerId}`) }),
    invalidRequest: (program) => ({ url: programUrl(program, '/partners/0') }),
  },
  {
    method: 'POST', route: `${ADMIN}/programs/:programId/members`, guard: 'admin', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: programUrl(program, '/members'), payload: member }),
    invalidRequest: (program) => ({ url: programUrl(program, '/members'), payload: { email: 'ann' } }),
  },
  {
    method: 'POST', route: `${ADMIN}/programs/:programId/members/remove`, guard: 'admin', accepted: 200,
    prepareRequest: async (t, program) => {
      await t.admin('POST', `/programs/${program.id}/members`, member);
      return { url: programUrl(program, '/members/remove'), payload: member };
    },
    invalidRequest: (program) => ({ url: programUrl(program, '/members/remove'), payload: { email: 'ann' } }),
  },
  {
    method: 'POST', route: `${ADMIN}/sessions`, guard: 'admin', accepted: 200,
    prepareRequest: async (t, program) => {
      await t.admin('POST', `/programs/${program.id}/members`, member);
      return { url: `${ADMIN}/sessions`, payload: member };
    },
    invalidRequest: () => ({ url: `${ADMIN}/sessions`, payload: { email: 'ann', ttlHours: 0 } }),
  },
  {
    method: 'POST', route: `${ADMIN}/sessions/revoke`, guard: 'admin', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `${ADMIN}/sessions/revoke`, payload: { partnerId: program.partnerId } }),
    invalidRequest: (program) => ({ url: `${ADMIN}/sessions/revoke`, payload: { email: 'ann@example.com', partnerId: program.partnerId } }),
  },
  {
    method: 'GET', route: `${ADMIN}/programs/:programId/webhook-events`, guard: 'admin', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: programUrl(program, '/webhook-events') }),
    invalidRequest: (program) => ({ url: programUrl(program, '/webhook-events?limit=0') }),
  },
  {
    method: 'POST', route: `${ADMIN}/programs/:programId/webhook-secret`, guard: 'admin', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: programUrl(program, '/webhook-secret'), payload: { secret: 'whsec_0123456789abcdef' } }),
    invalidRequest: (program) => ({ url: programUrl(program, '/webhook-secret'), payload: { secret: 'sk_live_nope' } }),
  },
  {
    method: 'POST', route: `${ADMIN}/demo`, guard: 'admin', accepted: 200,
    prepareRequest: async () => ({ url: `${ADMIN}/demo`, payload: { days: 2, clicks: 20, seed: 1 } }),
    invalidRequest: () => ({ url: `${ADMIN}/demo`, payload: { days: 0 } }),
  },
  {
    method: 'GET', route: '/api/tracking/performance/:programId', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/tracking/performance/${program.id}` }),
    // An unknown program and a bad query: still 401, not 404 or 400.
    invalidRequest: () => ({ url: '/api/tracking/performance/999?period=1y' }),
  },
  {
    method: 'GET', route: '/api/programs/:programId/commissions', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/commissions` }),
    invalidRequest: () => ({ url: '/api/programs/999/commissions?status=open' }),
  },
  {
    method: 'POST', route: '/api/programs/:programId/commissions/approve', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => {
      await approvedCommission(t, program);
      return { url: `/api/programs/${program.id}/commissions/approve`, payload: { ids: [1] } };
    },
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/commissions/approve`, payload: { ids: [] } }),
  },
  {
    method: 'POST', route: '/api/programs/:programId/commissions/reject', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => {
      await approvedCommission(t, program);
      return { url: `/api/programs/${program.id}/commissions/reject`, payload: { ids: [1], reason: 'test' } };
    },
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/commissions/reject`, payload: { ids: [0] } }),
  },
  {
    method: 'GET', route: '/api/programs/:programId/partners', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/partners` }),
    invalidRequest: () => ({ url: '/api/programs/0/partners' }),
  },
  {
    method: 'GET', route: '/api/programs/:programId/partners/:partnerId', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/partners/${program.partnerId}` }),
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/partners/x` }),
  },
  {
    method: 'GET', route: '/api/programs/:programId/settings', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/settings` }),
    invalidRequest: () => ({ url: '/api/programs/0/settings' }),
  },
  {
    method: 'PATCH', route: '/api/programs/:programId/settings', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/settings`, payload: { holdDays: 14 } }),
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/settings`, payload: {} }),
  },
  {
    method: 'GET', route: '/api/programs/:programId/keys', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/keys` }),
    invalidRequest: () => ({ url: '/api/programs/0/keys' }),
  },
  {
    method: 'POST', route: '/api/programs/:programId/keys', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/keys`, payload: { test: true } }),
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/keys`, payload: { test: 'yes' } }),
  },
  {
    method: 'POST', route: '/api/programs/:programId/keys/:keyId/retire', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => {
      const key = await t.admin('POST', `/programs/${program.id}/keys`, {});
      return { url: `/api/programs/${program.id}/keys/${key.id}/retire` };
    },
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/keys/0/retire` }),
  },
  {
    method: 'GET', route: '/api/programs/:programId/members', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/members` }),
    invalidRequest: () => ({ url: '/api/programs/0/members' }),
  },
  {
    method: 'POST', route: '/api/programs/:programId/members', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/members`, payload: member }),
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/members`, payload: { email: 'ann' } }),
  },
  {
    method: 'POST', route: '/api/programs/:programId/members/remove', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => {
      await t.admin('POST', `/programs/${program.id}/members`, member);
      return { url: `/api/programs/${program.id}/members/remove`, payload: member };
    },
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/members/remove`, payload: {} }),
  },
  {
    method: 'GET', route: '/api/programs/:programId/payouts/preview', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => {
      await approvedCommission(t, program);
      return { url: `/api/programs/${program.id}/payouts/preview` };
    },
    invalidRequest: () => ({ url: '/api/programs/0/payouts/preview' }),
  },
  {
    method: 'POST', route: '/api/programs/:programId/payouts', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => {
      await approvedCommission(t, program);
      return { url: `/api/programs/${program.id}/payouts` };
    },
    invalidRequest: () => ({ url: '/api/programs/0/payouts' }),
  },
  {
    method: 'GET', route: '/api/programs/:programId/payouts', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => {
      await processingPayout(t, program);
      return { url: `/api/programs/${program.id}/payouts` };
    },
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/payouts?status=open` }),
  },
  {
    method: 'GET', route: '/api/payouts/:payoutId', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => {
      await processingPayout(t, program);
      return { url: '/api/payouts/1' };
    },
    invalidRequest: () => ({ url: '/api/payouts/01' }),
  },
  {
    method: 'POST', route: '/api/payouts/:payoutId/mark-paid', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => {
      await processingPayout(t, program);
      return { url: '/api/payouts/1/mark-paid' };
    },
    invalidRequest: () => ({ url: '/api/payouts/0/mark-paid' }),
  },
  {
    method: 'POST', route: '/api/payouts/:payoutId/cancel', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => {
      await processingPayout(t, program);
      return { url: '/api/payouts/1/cancel' };
    },
    invalidRequest: () => ({ url: '/api/payouts/x/cancel' }),
  },
  {
    method: 'POST', route: '/api/payout-batches/:batchId/mark-paid', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => {
      await processingPayout(t, program);
      return { url: '/api/payout-batches/1/mark-paid' };
    },
    invalidRequest: () => ({ url: '/api/payout-batches/0/mark-paid' }),
  },
  {
    method: 'GET', route: '/api/payout-batches/:batchId/export', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => {
      await processingPayout(t, program);
      return { url: '/api/payout-batches/1/export?format=csv' };
    },
    invalidRequest: () => ({ url: '/api/payout-batches/1/export?format=pdf' }),
  },
  {
    method: 'POST', route: '/api/programs/:programId/webhook-endpoints', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/webhook-endpoints`, payload: { url: 'https://example.com/hooks' } }),
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/webhook-endpoints`, payload: { url: 'ftp://example.com/' } }),
  },
  {
    method: 'GET', route: '/api/programs/:programId/webhook-endpoints', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/webhook-endpoints` }),
    invalidRequest: () => ({ url: '/api/programs/0/webhook-endpoints' }),
  },
  {
    method: 'PATCH', route: '/api/webhook-endpoints/:endpointId', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => ({ url: `/api/webhook-endpoints/${await webhookEndpoint(t, program)}`, payload: { enabled: false } }),
    invalidRequest: () => ({ url: '/api/webhook-endpoints/1', payload: {} }),
  },
  {
    method: 'DELETE', route: '/api/webhook-endpoints/:endpointId', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => ({ url: `/api/webhook-endpoints/${await webhookEndpoint(t, program)}` }),
    invalidRequest: () => ({ url: '/api/webhook-endpoints/01' }),
  },
  {
    method: 'POST', route: '/api/webhook-endpoints/:endpointId/rotate-secret', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => ({ url: `/api/webhook-endpoints/${await webhookEndpoint(t, program)}/rotate-secret` }),
    invalidRequest: () => ({ url: '/api/webhook-endpoints/x/rotate-secret' }),
  },
  {
    method: 'POST', route: '/api/webhook-endpoints/:endpointId/test', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => ({ url: `/api/webhook-endpoints/${await webhookEndpoint(t, program)}/test` }),
    invalidRequest: () => ({ url: '/api/webhook-endpoints/0/test' }),
  },
  {
    method: 'GET', route: '/api/webhook-endpoints/:endpointId/deliveries', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => ({ url: `/api/webhook-endpoints/${await webhookEndpoint(t, program)}/deliveries` }),
    invalidRequest: () => ({ url: '/api/webhook-endpoints/1/deliveries?status=sent' }),
  },
  {
    method: 'POST', route: '/api/webhook-events/:eventId/redeliver', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => {
      const endpoint = await webhookEndpoint(t, program);
      const ping = await t.app.inject({ method: 'POST', url: `/api/webhook-endpoints/${endpoint}/test`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      return { url: `/api/webhook-events/${ping.json().eventId}/redeliver`, payload: {} };
    },
    invalidRequest: () => ({ url: '/api/webhook-events/nope/redeliver', payload: {} }),
  },
  {
    method: 'POST', route: `${ADMIN}/partners/:partnerId/sessions`, guard: 'admin', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `${ADMIN}/partners/${program.partnerId}/sessions`, payload: { ttlHours: 2 } }),
    invalidRequest: (program) => ({ url: `${ADMIN}/partners/${program.partnerId}/sessions`, payload: { ttlHours: 0 } }),
  },
  {
    method: 'GET', route: '/api/me', guard: 'session', accepted: 200,
    prepareRequest: async () => ({ url: '/api/me' }),
  },
  {
    method: 'DELETE', route: '/api/session', guard: 'signOut', accepted: 204,
    prepareRequest: async () => ({ url: '/api/session' }),
  },
  {
    // Another partner's own view: it names no program of the route's.
    method: 'GET', route: '/api/portal/me', guard: 'partner', accepted: 200, otherPartner: 200,
    prepareRequest: async () => ({ url: '/api/portal/me' }),
  },
  {
    method: 'GET', route: '/api/portal/programs/:programId/performance', guard: 'partner', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/portal/programs/${program.id}/performance?period=30d` }),
    invalidRequest: () => ({ url: '/api/portal/programs/999/performance?period=1y' }),
  },
  {
    method: 'GET', route: '/api/portal/programs/:programId/commissions', guard: 'partner', accepted: 200,
    prepareRequest: async (t, program) => {
      await approvedCommission(t, program);
      return { url: `/api/portal/programs/${program.id}/commissions?status=approved` };
    },
    invalidRequest: () => ({ url: '/api/portal/programs/999/commissions?status=open' }),
  },
  {
    method: 'GET', route: '/api/portal/programs/:programId/payouts', guard: 'partner', accepted: 200,
    prepareRequest: async (t, program) => {
      await processingPayout(t, program);
      return { url: `/api/portal/programs/${program.id}/payouts` };
    },
    invalidRequest: () => ({ url: '/api/portal/programs/0/payouts' }),
  },
  {
    method: 'GET', route: '/api/tracking/performance/:programId/partners', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/tracking/performance/${program.id}/partners` }),
    invalidRequest: () => ({ url: '/api/tracking/performance/999/partners?period=1y' }),
  },
  {
    method: 'GET', route: '/api/programs/:programId/applications', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/applications` }),
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/applications?status=maybe` }),
  },
  {
    method: 'POST', route: '/api/applications/:applicationId/approve', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => ({ url: `/api/applications/${await application(t, program)}/approve` }),
    invalidRequest: () => ({ url: '/api/applications/x/approve' }),
  },
  {
    method: 'POST', route: '/api/applications/:applicationId/reject', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => ({ url: `/api/applications/${await application(t, program)}/reject`, payload: { reason: 'Not a fit' } }),
    invalidRequest: () => ({ url: '/api/applications/1/reject', payload: { reason: '' } }),
  },
  {
    method: 'POST', route: '/api/programs/:programId/codes', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/codes`, payload: { partnerId: program.partnerId, code: 'SUMMER20' } }),
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/codes`, payload: { partnerId: program.partnerId, code: 'no spaces' } }),
  },
  {
    method: 'GET', route: '/api/programs/:programId/codes', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/codes` }),
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/codes?partnerId=x` }),
  },
  {
    method: 'DELETE', route: '/api/programs/:programId/codes/:code', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => ({ url: `/api/programs/${program.id}/codes/${await promotionCode(t, program)}` }),
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/codes/a%20b` }),
  },
  {
    method: 'POST', route: '/api/programs/:programId/groups', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/groups`, payload: { name: 'Gold', commissionPercent: 25 } }),
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/groups`, payload: { name: 'Gold', commissionPercent: 101 } }),
  },
  {
    method: 'GET', route: '/api/programs/:programId/groups', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/groups` }),
    invalidRequest: () => ({ url: '/api/programs/x/groups' }),
  },
  {
    method: 'PATCH', route: '/api/programs/:programId/groups/:groupId', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => ({ url: `/api/programs/${program.id}/groups/${await group(t, program)}`, payload: { holdDays: 3 } }),
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/groups/1`, payload: { holdDays: -1 } }),
  },
  {
    method: 'DELETE', route: '/api/programs/:programId/groups/:groupId', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => {
      const target = await group(t, program);
      return { url: `/api/programs/${program.id}/groups/${await group(t, program, 'Other')}?moveTo=${target}` };
    },
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/groups/1?moveTo=x` }),
  },
  {
    method: 'PUT', route: '/api/programs/:programId/partners/:partnerId/group', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => ({ url: `/api/programs/${program.id}/partners/${program.partnerId}/group`, payload: { groupId: await group(t, program) } }),
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/partners/${program.partnerId}/group`, payload: { groupId: 0 } }),
  },
  {
    method: 'GET', route: '/api/programs/:programId/preview', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/preview?period=30d&commissionPercent=15` }),
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/preview?commissionPercent=150` }),
  },
  {
    method: 'GET', route: '/api/programs/:programId/group-moves', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/group-moves` }),
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/group-moves?partnerId=x` }),
  },
  {
    method: 'GET', route: '/api/programs/:programId/fraud-events', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/fraud-events` }),
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/fraud-events?status=open` }),
  },
  {
    method: 'POST', route: '/api/programs/:programId/fraud/release', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => ({ url: `/api/programs/${program.id}/fraud/release`, payload: { commissionIds: [await heldCommission(t, program)] } }),
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/fraud/release`, payload: { commissionIds: [] } }),
  },
  {
    method: 'POST', route: '/api/programs/:programId/fraud/reject', guard: 'session', accepted: 200,
    prepareRequest: async (t, program) => ({ url: `/api/programs/${program.id}/fraud/reject`, payload: { commissionIds: [await heldCommission(t, program)] } }),
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/fraud/reject`, payload: { commissionIds: ['x'] } }),
  },
  {
    // A program without a Stripe key: 409, after authorization and validation.
    method: 'POST', route: '/api/programs/:programId/stripe/reconcile', guard: 'session', accepted: 409,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/stripe/reconcile`, payload: { dryRun: true } }),
    invalidRequest: (program) => ({ url: `/api/programs/${program.id}/stripe/reconcile`, payload: { since: 'yesterday' } }),
  },
  {
    method: 'GET', route: '/api/programs/:programId/export', guard: 'session', accepted: 200,
    prepareRequest: async (_t, program) => ({ url: `/api/programs/${program.id}/export?table=clicks` }),
    invalidRequest: () => ({ url: '/api/programs/999/export?table=secrets' }),
  },
];

for (const route of ROUTES) runCommonRouteTests(route);

type Probe = { method: 'GET' | 'POST' | 'OPTIONS'; url: string; payload?: object; headers?: Record<string, string> };

/** The routes that take no credential, each with a request it answers without one. */
const PUBLIC: Array<[string, (program: ProgramFixture) => Probe, number]> = [
  ['GET /healthz', () => ({ method: 'GET', url: '/healthz' }), 200],
  ['GET /openapi.json', () => ({ method: 'GET', url: '/openapi.json' }), 200],
  // Partner links and the tracking script are opened by visitors' browsers (docs/tracking.md#partner-links-and-the-tracking-script).
  ['GET /r/:refCode', (program) => ({ method: 'GET', url: `/r/${program.refCode}` }), 404],
  ['GET /pk.js', (program) => ({ method: 'GET', url: `/pk.js?program=${program.id}` }), 200],
  // Verified by its Stripe signature, not a bearer credential: unsigned is 400 invalid_signature.
  ['POST /api/v1/webhooks/stripe/:programId', (program) => ({ method: 'POST', url: `/api/v1/webhooks/stripe/${program.id}`, payload: {} }), 400],
  // The sign-in link's one-time code is the credential, in the body: an unknown one is 400 invalid_sign_in_code.
  ['POST /api/sessions/exchange', () => ({ method: 'POST', url: '/api/sessions/exchange', payload: { code: 'pkc_unknown' } }), 400],
  // Asking for a sign-in link by e-mail: the same 202 whoever asks (docs/mail.md#sign-in-by-e-mail).
  ['POST /api/sessions/email-link', () => ({ method: 'POST', url: '/api/sessions/email-link', payload: { email: 'nobody@example.com', audience: 'member' } }), 202],
  // The application page's program and its form (docs/applications.md).
  ['GET /api/public/programs/:programId', (program) => ({ method: 'GET', url: `/api/public/programs/${program.id}` }), 200],
  ['POST /api/public/programs/:programId/applications', (program) => ({ method: 'POST', url: `/api/public/programs/${program.id}/applications`, payload: { name: 'Ann', email: 'ann@example.com' } }), 202],
  // A mail's unsubscribe link is signed: without its signature it is 400 (docs/mail.md#notifications-and-unsubscribing).
  ['GET /mail/unsubscribe', () => ({ method: 'GET', url: '/mail/unsubscribe?email=a%40example.com&kind=commission' }), 400],
  ['POST /mail/unsubscribe', () => ({ method: 'POST', url: '/mail/unsubscribe?email=a%40example.com&kind=commission' }), 400],
  ['POST /mail/subscribe', () => ({ method: 'POST', url: '/mail/subscribe?email=a%40example.com&kind=commission' }), 400],
  [
    'OPTIONS *',
    () => ({ method: 'OPTIONS', url: '/api/v1/track/click', headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } }),
    204,
  ],
];

describe('the authorization table covers the app', () => {
  test('every route the app serves is in the table of authenticated routes or among the public ones', async () => {
    const t = await buildTestApp();
    await t.app.ready();
    const listed = [...ROUTES.map((r) => `${r.method} ${r.route}`), ...PUBLIC.map(([route]) => route)];
    expect(servedRoutes(t.app)).toEqual(listed.sort());
  });

  test.each(PUBLIC)('%s answers a request without credentials', async (_route, probe, status) => {
    const t = await buildTestApp();
    const program = await t.program();
    const { method, url, payload, headers } = probe(program);
    const response = await t.app.inject({ method, url, payload, headers });
    expect(response.statusCode, response.body).toBe(status);
    if (url.startsWith('/api/')) expect(response.headers['cache-control']).toBe('no-store');
  });
});
