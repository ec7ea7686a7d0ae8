import { describe, expect, test } from 'vitest';
import { buildTestApp } from '../helpers/app.js';

describe('POST /api/v1/track/click', () => {
  test('records a click for an active ref and answers an unguessable click id', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const response = await t.post('/api/v1/track/click', { ref: program.refCode, landing_url: 'https://shop.example/', referrer: 'https://blog.example/' });
    expect(response.statusCode).toBe(200);
    expect(response.json().click_id).toMatch(/^ck_1_[A-Za-z0-9_-]{22}$/);
    expect(await t.count('clicks', `program_id = ${program.id} AND NOT is_test`)).toBe(1);
  });

  test('a test click is stored as test', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    expect((await t.post('/api/v1/track/click', { ref: program.refCode, test: true })).statusCode).toBe(200);
    expect(await t.count('clicks', 'is_test')).toBe(1);
  });

  test('allows browsers (CORS) on the click endpoint', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const response = await t.app.inject({
      method: 'POST', url: '/api/v1/track/click', payload: { ref: program.refCode }, headers: { origin: 'https://shop.example' },
    });
    expect(response.headers['access-control-allow-origin']).toBe('https://shop.example');
    const preflight = await t.app.inject({
      method: 'OPTIONS', url: '/api/v1/track/click', headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://shop.example');
  });

  test('unknown ref is 404 in the platform envelope, nothing stored', async () => {
    const t = await buildTestApp();
    await t.program();
    const response = await t.post('/api/v1/track/click', { ref: 'nope' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      data: null,
      error: { status: 404, name: 'NotFoundError', message: 'No active referral link with ref nope', details: null, code: 'not_found' },
    });
    expect(await t.count('clicks')).toBe(0);
  });

  test('inactive ref is 404', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    await t.store.transaction((sql) => sql.write({ table: 'partner_programs', set: "status = 'inactive'", where: 'true' }));
    expect((await t.post('/api/v1/track/click', { ref: program.refCode })).statusCode).toBe(404);
  });

  test.each([
    ['missing ref', {}, 'ref'],
    ['empty ref', { ref: '' }, 'ref'],
    ['ref not a string', { ref: 42 }, 'ref'],
    ['test not a boolean', { ref: 'x', test: 'yes' }, 'test'],
  ])('%s is 400 invalid_request naming the field', async (_name, body, field) => {
    const t = await buildTestApp();
    const response = await t.post('/api/v1/track/click', body);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_request');
    expect(response.json().error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
    expect(await t.count('clicks')).toBe(0);
  });

  test('a body that is not JSON is 400 invalid_request', async () => {
    const t = await buildTestApp();
    const response = await t.app.inject({ method: 'POST', url: '/api/v1/track/click', payload: '{"ref":', headers: { 'content-type': 'application/json' } });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_request');
  });
});

describe('POST /api/v1/track/lead', () => {
  test('creates a lead customer bound to the click partner, signup_date = now', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const click = await t.click(program);
    const response = await t.post('/api/v1/track/lead', { customer_key: 'user_1', click_id: click, email: 'Ann@Example.com', name: 'Ann' }, program.apiKey);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, customer_id: 1, message: 'Lead tracked' });
    const customer = await t.store.read((sql) => sql.one('SELECT * FROM customers WHERE id = 1'));
    expect(customer).toMatchObject({
      program_id: program.id, customer_key: 'user_1', email: 'ann@example.com', name: 'Ann', status: 'lead',
      partner_program_id: program.partnerProgramId, click_id: 1, first_purchase_date: null,
    });
    expect((customer!.signup_date as Date).toISOString()).toBe(t.clock.now().toISOString());
  });

  test('the same customer_key again returns the existing customer, no second record', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const { clickId, customerId } = await t.lead(program, 'user_1');
    const again = await t.post('/api/v1/track/lead', { customer_key: 'user_1', click_id: clickId }, program.apiKey);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ success: true, customer_id: customerId, message: 'Customer already tracked' });
    expect(await t.count('customers')).toBe(1);
  });

  test('concurrent identical leads create one customer', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const clickId = await t.click(program);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => t.post('/api/v1/track/lead', { customer_key: 'same', click_id: clickId }, program.apiKey)),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => a.json().customer_id))).toEqual(new Set([1]));
    expect(await t.count('customers')).toBe(1);
  });

  test.each([
    ['unknown click id', 'ck_999_aaaaaaaaaaaaaaaaaaaaaa'],
    ['malformed click id', 'not-a-click'],
  ])('%s is 400 no_attribution, nothing created', async (_name, clickId) => {
    const t = await buildTestApp();
    const program = await t.program();
    const response = await t.post('/api/v1/track/lead', { customer_key: 'u', click_id: clickId }, program.apiKey);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'no_attribution', status: 400 });
    expect(await t.count('customers')).toBe(0);
  });

  test("another program's click is 400 no_attribution", async () => {
    const t = await buildTestApp();
    const mine = await t.program();
    const theirs = await t.program();
    const clickId = await t.click(theirs);
    const response = await t.post('/api/v1/track/lead', { customer_key: 'u', click_id: clickId }, mine.apiKey);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('no_attribution');
    expect(await t.count('customers')).toBe(0);
  });

  test('rate limited per key: 429 rate_limited with Retry-After', async () => {
    const t = await buildTestApp({ rateLimit: { max: 1, windowSeconds: 60 } });
    const program = await t.program();
    const clickId = await t.click(program);
    expect((await t.post('/api/v1/track/lead', { customer_key: 'a', click_id: clickId }, program.apiKey)).statusCode).toBe(200);
    const limited = await t.post('/api/v1/track/lead', { customer_key: 'b', click_id: clickId }, program.apiKey);
    expect(limited.statusCode).toBe(429);
    expect(limited.json().error).toMatchObject({ code: 'rate_limited', retry_after_seconds: expect.any(Number) });
    expect(limited.headers['retry-after']).toBe(String(limited.json().error.retry_after_seconds));
    expect(await t.count('customers')).toBe(1);
  });

  test('a test key validates the lead and records nothing', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const clickId = await t.click(program);
    const response = await t.post('/api/v1/track/lead', { customer_key: 'u', click_id: clickId }, program.testApiKey);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, customer_id: null, message: 'Test mode: lead validated, nothing recorded' });
    expect(await t.count('customers')).toBe(0);
  });

  test.each([
    ['missing customer_key', { click_id: 'ck_1_x' }, 'customer_key'],
    ['missing click_id', { customer_key: 'u' }, 'click_id'],
    ['customer_key too long', { customer_key: 'x'.repeat(256), click_id: 'c' }, 'customer_key'],
    ['bad email', { customer_key: 'u', click_id: 'c', email: 'not-an-email' }, 'email'],
  ])('%s is 400 invalid_request', async (_name, body, field) => {
    const t = await buildTestApp();
    const program = await t.program();
    const response = await t.post('/api/v1/track/lead', body, program.apiKey);
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('invalid_request');
    expect(response.json().error.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
  });
});
