import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, withCustomer } from '../helpers/app.js';
import { saleFields } from '../helpers/factories.js';
import { counts, delta } from '../faults/support.js';

/**
 * Text that is not valid Unicode (docs/api.md#requests): a lone UTF-16 surrogate, legal in JSON
 * as an escape, is refused with 400 invalid_request naming each field that holds one, on every
 * route, and nothing is stored. (The webhook's case is in test/faults/bad-input.test.ts.)
 */
const MESSAGE = 'not valid Unicode (a lone UTF-16 surrogate)';

const refused = (...fields: string[]) => ({
  data: null,
  error: {
    status: 400,
    name: 'ValidationError',
    code: 'invalid_request',
    message: `Invalid request: ${fields.map((field) => `${field}: ${MESSAGE}`).join('; ')}`,
    details: { fields: fields.map((field) => ({ field, message: MESSAGE })) },
  },
});

describe('lone surrogates in request bodies', () => {
  test('a sale whose transaction_id holds one is 400, every time (it used to be stored once, then 500 forever)', async () => {
    const { t, program } = await withCustomer();
    const before = await counts(t.store);
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await t.post('/api/v1/track/sale', saleFields({ transaction_id: 'in_\ud800' }), program.apiKey);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(refused('transaction_id'));
    }
    expect(delta(before, await counts(t.store))).toEqual({});
    // The same id without the surrogate is an ordinary sale.
    expect(await t.sale(program, { transaction_id: 'in_' })).toMatchObject({ success: true, sale_id: expect.any(Number) });
  });

  test('leads whose keys differ only in their lone surrogate (\\ud800, \\udbff) are both refused, never merged into one customer', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const clickId = await t.click(program);
    for (const key of ['cust_\ud800', 'cust_\udbff']) {
      const response = await t.post('/api/v1/track/lead', { customer_key: key, click_id: clickId }, program.apiKey);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toEqual(refused('customer_key'));
    }
    expect(await t.count('customers')).toBe(0);
  });

  test('every field that holds one is named, nested ones by their path, keys too, also fields the route ignores', async () => {
    const { t, program } = await withCustomer();
    const response = await t.post(
      '/api/v1/track/sale',
      saleFields({ product_id: '\udfff', line_items: [{ sku: 'a' }, { sku: 'b\udc00' }], additional_data: { ['note\ud800']: 1 }, unknown_field: 'x\ud800y' }),
      program.apiKey,
    );
    expect(response.statusCode).toBe(400);
    // A key is named with U+FFFD in place of its surrogate, so the answer itself is valid Unicode.
    expect(response.json()).toEqual(refused('product_id', 'line_items.1.sku', 'additional_data.note\ufffd', 'unknown_field'));
    expect(await t.count('sale_events')).toBe(0);
  });

  test('a body that is just such a string is refused as the body; a pair of surrogates (one character) is not', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const lone = await t.app.inject({ method: 'POST', url: '/api/v1/track/click', payload: '"\\ud800"', headers: { 'content-type': 'application/json' } });
    expect(lone.statusCode).toBe(400);
    expect(lone.json()).toEqual(refused('body'));
    const paired = await t.post('/api/v1/track/click', { ref: program.refCode, landing_url: 'https://shop.example/\ud834\udd1e' });
    expect(paired.statusCode, paired.body).toBe(200);
  });

  test.each([
    ['POST /api/v1/track/click', '/api/v1/track/click', { ref: 'x\ud800' }, 'ref'],
    ['POST /api/admin/programs', '/api/admin/programs', { name: 'Shop \udc00' }, 'name'],
    ['POST /api/admin/partners', '/api/admin/partners', { name: 'P', email: 'p\ud800@example.com' }, 'email'],
    ['POST /api/admin/sessions', '/api/admin/sessions', { email: '\ud800@example.com' }, 'email'],
    ['POST /api/admin/programs/1/rules', '/api/admin/programs/1/rules', { productId: 'plan\udbff', commissionPercent: 10 }, 'productId'],
    ['POST /api/admin/programs/1/members', '/api/admin/programs/1/members', { email: 'm\udfff@example.com' }, 'email'],
  ])('%s: 400 naming the field, nothing stored', async (_name, url, payload, field) => {
    const t = await buildTestApp();
    await t.program();
    const before = await counts(t.store);
    // The admin routes take the admin token; the click is a browser's, without a credential.
    const headers = url.startsWith('/api/admin') ? { authorization: `Bearer ${ADMIN_TOKEN}` } : {};
    const response = await t.app.inject({ method: 'POST', url, payload, headers });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual(refused(field));
    expect(delta(before, await counts(t.store))).toEqual({});
  });

  test('query strings cannot carry one: percent-decoding refuses the UTF-8 of a surrogate, so the value stays escaped text that fails its own rule', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const response = await t.app.inject({
      method: 'GET',
      url: `/api/tracking/performance/${program.id}?dateFrom=%ED%A0%80&dateTo=2026-03-01`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details.fields).toEqual([{ field: 'dateFrom', message: 'Invalid input' }]);
  });
});
