import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, buildTestApp } from '../helpers/app.js';
import { sendWebhook } from '../helpers/stripe.js';

/**
 * Path ids (docs/api.md#requests): decimal digits without sign, leading zeros, exponent or
 * spaces, at most 2^53 − 1. Anything else is 400 invalid_request naming the parameter, on every
 * route that takes one, before the row is looked up.
 */
const RULE = 'a positive decimal integer without sign, leading zeros, exponent or spaces';

const invalid = (field: string, message: string) => ({
  data: null,
  error: {
    status: 400,
    name: 'ValidationError',
    code: 'invalid_request',
    message: `Invalid request: ${field}: ${message}`,
    details: { fields: [{ field, message }] },
  },
});

// As they appear in the URL: %20 is a space, %2B a plus sign.
const MALFORMED = ['1e0', '0x2', '%2B2', '+2', '02', '%207', '7%20', '0', '-1', '1.0', '1_0', 'abc', '%EF%BC%91' /* fullwidth 1 */];

const ROUTES: Array<{ method: 'GET' | 'POST'; url: (id: string) => string; param: string }> = [
  { method: 'GET', url: (id) => `/api/admin/programs/${id}`, param: 'programId' },
  { method: 'GET', url: (id) => `/api/admin/programs/${id}/keys`, param: 'programId' },
  { method: 'POST', url: (id) => `/api/admin/programs/${id}/keys/1/retire`, param: 'programId' },
  { method: 'POST', url: (id) => `/api/admin/programs/1/keys/${id}/retire`, param: 'keyId' },
  { method: 'GET', url: (id) => `/api/admin/programs/${id}/webhook-events`, param: 'programId' },
  { method: 'GET', url: (id) => `/api/tracking/performance/${id}`, param: 'programId' },
  { method: 'GET', url: (id) => `/api/programs/${id}/commissions`, param: 'programId' },
  { method: 'POST', url: (id) => `/api/programs/${id}/payouts`, param: 'programId' },
  { method: 'GET', url: (id) => `/api/payouts/${id}`, param: 'payoutId' },
  { method: 'POST', url: (id) => `/api/payouts/${id}/cancel`, param: 'payoutId' },
  { method: 'GET', url: (id) => `/api/payout-batches/${id}/export?format=csv`, param: 'batchId' },
  { method: 'GET', url: (id) => `/api/tracking/performance/${id}/partners`, param: 'programId' },
  { method: 'GET', url: (id) => `/api/admin/programs/${id}/partners/1`, param: 'programId' },
  { method: 'GET', url: (id) => `/api/admin/programs/1/partners/${id}`, param: 'partnerId' },
  { method: 'GET', url: (id) => `/pk.js?program=${id}`, param: 'program' },
];

describe('path ids', () => {
  test.each(ROUTES.flatMap((route) => MALFORMED.map((id) => [route.method, route.url(id), route.param] as const)))(
    '%s %s: 400 invalid_request naming %s',
    async (method, url, param) => {
      const t = await buildTestApp();
      await t.program(); // program 1 and its key 1 exist: the malformed ids must not find them
      const response = await t.app.inject({ method, url, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toEqual(invalid(param, RULE));
    },
  );

  test('2^53 is 400 naming the limit; 2^53 − 1 is a valid id (404 here), and 1 finds the program', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const get = (id: string) => t.app.inject({ method: 'GET', url: `/api/admin/programs/${id}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const tooLarge = await get('9007199254740992');
    expect(tooLarge.statusCode).toBe(400);
    expect(tooLarge.json()).toEqual(invalid('programId', 'at most 9007199254740991'));
    const largest = await get('9007199254740991');
    expect(largest.statusCode).toBe(404);
    expect(largest.json().error).toMatchObject({ code: 'not_found', message: 'Program 9007199254740991 not found' });
    const found = await get(String(program.id));
    expect(found.statusCode).toBe(200);
    expect(found.json()).toMatchObject({ id: program.id });
  });

  test.each(['1e0', '01', '%201'])('the Stripe webhook of program %s: 400 invalid_request before the signature is looked at', async (id) => {
    const t = await buildTestApp();
    const program = await t.program();
    const response = await sendWebhook(t, program, { id: 'evt_1', type: 'customer.created', data: { object: {} } }, { programId: id });
    expect(response.status).toBe(400);
    expect(response.body).toEqual(invalid('programId', RULE));
    expect(await t.count('webhook_events')).toBe(0);
  });
});
