import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, getReport, type TestApp } from '../helpers/app.js';
import { fixture, sendWebhook } from '../helpers/stripe.js';

/**
 * Promotion codes (docs/promotion-codes.md): the codes API, the sale and lead endpoints' coupon_code
 * as the last attribution step, Stripe's discounts[].promotion_code, and codeSales in the
 * per-partner report.
 */

const codesUrl = (programId: number) => `/api/programs/${programId}/codes`;

async function call(t: TestApp, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) {
  const response = await t.app.inject({ method, url, payload, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return { status: response.statusCode, body: response.json() };
}

/** A program with partner A (the fixture's) and partner B, and code SUMMER20 for B. */
async function withCode(stripePromotionCode?: string) {
  const t = await buildTestApp();
  const program = await t.program();
  const b = await t.partner({ name: 'Bea' });
  await t.enroll(program.id, b.id);
  const added = await call(t, 'POST', codesUrl(program.id), { partnerId: b.id, code: 'SUMMER20', stripePromotionCode });
  expect(added.status).toBe(200);
  return { t, program, b, code: added.body };
}

const sale = (t: TestApp, apiKey: string, body: object) => t.post('/api/v1/track/sale', { transaction_id: 'in_1', amount_cents: 5000, ...body }, apiKey);

/** The partner (enrollment) of a sale, and whether a code attributed it. */
async function saleOf(t: TestApp, saleId: number) {
  return t.store.read(async (sql) => {
    const row = await sql.one<{ partner_id: number; code_sale: boolean }>(
      `SELECT pp.partner_id, EXISTS (SELECT 1 FROM code_sales c WHERE c.sale_id = s.id) AS code_sale
       FROM sale_events s JOIN partner_programs pp ON pp.id = s.partner_program_id WHERE s.id = $1`,
      [saleId],
    );
    return row;
  });
}

describe('the codes API', () => {
  test('add, list and remove a code; the answer names the partner', async () => {
    const { t, program, b, code } = await withCode('promo_1Q2w3E');
    expect(code).toEqual({
      id: 1, programId: program.id, partnerId: b.id, partnerName: 'Bea', code: 'SUMMER20', stripePromotionCode: 'promo_1Q2w3E', createdAt: '2026-03-01T12:00:00.000Z',
    });
    await call(t, 'POST', codesUrl(program.id), { partnerId: program.partnerId, code: 'alpha-1' });
    const listed = await call(t, 'GET', codesUrl(program.id));
    expect(listed.body.map((c: { code: string }) => c.code)).toEqual(['alpha-1', 'SUMMER20']);
    expect((await call(t, 'GET', `${codesUrl(program.id)}?partnerId=${b.id}`)).body.map((c: { code: string }) => c.code)).toEqual(['SUMMER20']);

    const removed = await call(t, 'DELETE', `${codesUrl(program.id)}/summer20`);
    expect(removed).toEqual({ status: 200, body: code });
    expect((await call(t, 'GET', codesUrl(program.id))).body.map((c: { code: string }) => c.code)).toEqual(['alpha-1']);
  });

  test.each([
    ['the same code', 'SUMMER20', 'Promotion code SUMMER20 exists in program 1'],
    ['another case', 'summer20', 'Promotion code SUMMER20 exists in program 1'],
  ])('a code that collides (%s) is 409 naming the code that holds it', async (_name, input, message) => {
    const { t, program } = await withCode();
    const response = await call(t, 'POST', codesUrl(program.id), { partnerId: program.partnerId, code: input });
    expect(response.status).toBe(409);
    expect(response.body.error).toMatchObject({ code: 'conflict', message, details: { code: 'SUMMER20' } });
    expect(await t.count('promotion_codes')).toBe(1);
  });

  test('a removed code stays taken; another program may have the same code', async () => {
    const { t, program } = await withCode();
    await call(t, 'DELETE', `${codesUrl(program.id)}/SUMMER20`);
    const again = await call(t, 'POST', codesUrl(program.id), { partnerId: program.partnerId, code: 'Summer20' });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe('Promotion code SUMMER20 was removed and stays taken in program 1');
    const other = await t.program();
    expect((await call(t, 'POST', codesUrl(other.id), { partnerId: other.partnerId, code: 'SUMMER20' })).status).toBe(200);
  });

  test('a Stripe promotion code names one code of a program', async () => {
    const { t, program } = await withCode('promo_1Q2w3E');
    const response = await call(t, 'POST', codesUrl(program.id), { partnerId: program.partnerId, code: 'WINTER', stripePromotionCode: 'promo_1Q2w3E' });
    expect(response.status).toBe(409);
    expect(response.body.error.message).toBe('Stripe promotion code promo_1Q2w3E already names code SUMMER20');
  });

  test.each([
    ['a code with a space', { code: 'SUMMER 20' }, 'code'],
    ['an empty code', { code: '' }, 'code'],
    ['a code of 65 characters', { code: 'A'.repeat(65) }, 'code'],
    ['a Stripe id that is no promotion code', { code: 'OK', stripePromotionCode: 'coupon_1' }, 'stripePromotionCode'],
  ])('%s is 400 invalid_request naming the field, nothing stored', async (_name, body, field) => {
    const t = await buildTestApp();
    const program = await t.program();
    const response = await call(t, 'POST', codesUrl(program.id), { partnerId: program.partnerId, ...body });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
    expect(response.body.error.details.fields.map((d: { field: string }) => d.field)).toEqual([field]);
    expect(await t.count('promotion_codes')).toBe(0);
  });

  test('a partner not enrolled is 409; an unknown program or code is 404', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const stranger = await t.partner();
    const notEnrolled = await call(t, 'POST', codesUrl(program.id), { partnerId: stranger.id, code: 'X1' });
    expect(notEnrolled.status).toBe(409);
    expect(notEnrolled.body.error.message).toBe(`Partner ${stranger.id} is not enrolled in program ${program.id}`);
    expect((await call(t, 'GET', codesUrl(99))).status).toBe(404);
    const unknown = await call(t, 'DELETE', `${codesUrl(program.id)}/NOPE`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.message).toBe(`Promotion code NOPE not found in program ${program.id}`);
  });

  test('without the admin token or a session: 401', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const response = await t.app.inject({ method: 'GET', url: codesUrl(program.id) });
    expect(response.statusCode).toBe(401);
  });
});

describe('coupon_code on the sale endpoint', () => {
  test("a code attributes a sale with no click and no lead: a conversion of the code's partner, its later sales by key", async () => {
    const { t, program, b } = await withCode();
    const first = await sale(t, program.apiKey, { customer_key: 'new_1', coupon_code: 'summer20' });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ success: true, sale_id: 1, commission_id: 1, message: 'Sale and commission recorded' });
    expect(await saleOf(t, 1)).toEqual({ partner_id: b.id, code_sale: true });
    const customer = await t.store.read((sql) => sql.one('SELECT customer_key, status, click_id FROM customers WHERE customer_key = $1', ['new_1']));
    expect(customer).toEqual({ customer_key: 'new_1', status: 'conversion', click_id: null });

    // The customer now exists: the key attributes, the code is not looked at (even an unknown one).
    const second = await sale(t, program.apiKey, { transaction_id: 'in_2', customer_key: 'new_1', coupon_code: 'NOPE' });
    expect(second.statusCode).toBe(200);
    expect(await saleOf(t, second.json().sale_id)).toEqual({ partner_id: b.id, code_sale: false });
  });

  test('without a customer_key the customer is code:<transaction_id>', async () => {
    const { t, program } = await withCode();
    expect((await sale(t, program.apiKey, { coupon_code: 'SUMMER20' })).statusCode).toBe(200);
    expect(await t.count('customers', "customer_key = 'code:in_1' AND status = 'conversion'")).toBe(1);
  });

  test("precedence: the customer key's and the click's partner win over the code's", async () => {
    const { t, program, b } = await withCode();
    await t.lead(program, 'cust_a');
    const byKey = await sale(t, program.apiKey, { customer_key: 'cust_a', coupon_code: 'SUMMER20' });
    expect(await saleOf(t, byKey.json().sale_id)).toEqual({ partner_id: program.partnerId, code_sale: false });

    const clickId = await t.click(program);
    await t.post('/api/v1/track/lead', { customer_key: 'cust_c', click_id: clickId }, program.apiKey);
    const byClick = await sale(t, program.apiKey, { transaction_id: 'in_2', click_id: clickId, coupon_code: 'SUMMER20' });
    expect(await saleOf(t, byClick.json().sale_id)).toEqual({ partner_id: program.partnerId, code_sale: false });

    const byCode = await sale(t, program.apiKey, { transaction_id: 'in_3', customer_key: 'cust_unknown', coupon_code: 'SUMMER20' });
    expect(await saleOf(t, byCode.json().sale_id)).toEqual({ partner_id: b.id, code_sale: true });
  });

  test.each([
    ['unknown', 'WINTER', false],
    ['removed', 'SUMMER20', true],
  ])('an %s code is 400 no_attribution naming it; nothing stored', async (_name, code, remove) => {
    const { t, program } = await withCode();
    if (remove) await call(t, 'DELETE', `${codesUrl(program.id)}/SUMMER20`);
    const response = await sale(t, program.apiKey, { customer_key: 'new_1', coupon_code: code });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'no_attribution',
      message: `Neither customer_key nor click_id matches a customer of this program, and coupon_code ${code} is no active promotion code of it`,
      details: { customer_key: 'new_1', click_id: null, coupon_code: code },
    });
    expect([await t.count('sale_events'), await t.count('customers'), await t.count('code_sales'), await t.count('sale_transactions')]).toEqual([0, 0, 0, 0]);
  });

  test("an inactive partner's code attributes nothing", async () => {
    const { t, program, b } = await withCode();
    await t.admin('PATCH', `/partners/${b.id}`, { status: 'inactive' });
    const response = await sale(t, program.apiKey, { coupon_code: 'SUMMER20' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.code).toBe('no_attribution');
  });

  test('a code of another program attributes nothing', async () => {
    const { t } = await withCode();
    const other = await t.program();
    const response = await sale(t, other.apiKey, { coupon_code: 'SUMMER20' });
    expect(response.statusCode).toBe(400);
  });

  test('coupon_code longer than 255 characters is 400 invalid_request', async () => {
    const { t, program } = await withCode();
    const response = await sale(t, program.apiKey, { coupon_code: 'x'.repeat(256) });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details.fields).toEqual([{ field: 'coupon_code', message: expect.any(String) }]);
  });
});

describe('coupon_code on the lead endpoint', () => {
  test("a lead without a click is bound to the code's partner; its sale attributes by key", async () => {
    const { t, program, b } = await withCode();
    const lead = await t.post('/api/v1/track/lead', { customer_key: 'lead_1', coupon_code: 'Summer20' }, program.apiKey);
    expect(lead.statusCode).toBe(200);
    expect(lead.json()).toEqual({ success: true, customer_id: 1, message: 'Lead tracked' });
    const response = await sale(t, program.apiKey, { customer_key: 'lead_1' });
    expect(await saleOf(t, response.json().sale_id)).toEqual({ partner_id: b.id, code_sale: false });
    expect(await t.count('customers', "status = 'conversion'")).toBe(1);
  });

  test('neither click_id nor coupon_code is 400; an unknown code is 400 no_attribution naming it', async () => {
    const { t, program } = await withCode();
    const none = await t.post('/api/v1/track/lead', { customer_key: 'lead_1' }, program.apiKey);
    expect(none.statusCode).toBe(400);
    expect(none.json().error.details.fields).toEqual([{ field: 'click_id', message: 'give click_id or coupon_code' }]);
    const unknown = await t.post('/api/v1/track/lead', { customer_key: 'lead_1', coupon_code: 'NOPE' }, program.apiKey);
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toMatchObject({ code: 'no_attribution', details: { click_id: null, coupon_code: 'NOPE' } });
    expect(await t.count('customers')).toBe(0);
  });
});

describe("Stripe's discounts[].promotion_code", () => {
  /** The one-time checkout with no partner metadata and no known e-mail, with these discounts. */
  const checkout = (programId: number, discounts: unknown[]) => {
    const event = fixture('checkout-one-time', { CLICK_ID: '', CUSTOMER_KEY: '', PROGRAM_ID: String(programId) });
    event.data.object.metadata = { program_id: String(programId) };
    event.data.object.discounts = discounts;
    return event;
  };

  test.each([
    ['an id', [{ coupon: 'Z4OV52SU', promotion_code: 'promo_1Q2w3E' }]],
    ['an expanded object (its code compared)', [{ coupon: 'Z4OV52SU', promotion_code: { id: 'promo_other', object: 'promotion_code', code: 'summer20' } }]],
  ])('a checkout session whose promotion code is %s attributes after every other step failed', async (_name, discounts) => {
    const { t, program, b } = await withCode('promo_1Q2w3E');
    const delivery = await sendWebhook(t, program, checkout(program.id, discounts));
    expect(delivery.status).toBe(200);
    expect(delivery.body).toMatchObject({ received: true, outcome: 'recorded', reason: null, sale_id: 1, redelivery: false });
    expect(await saleOf(t, 1)).toEqual({ partner_id: b.id, code_sale: true });
  });

  test('an unknown promotion code attributes nothing: skipped, no_attribution', async () => {
    const { t, program } = await withCode('promo_1Q2w3E');
    const delivery = await sendWebhook(t, program, checkout(program.id, [{ promotion_code: 'promo_unknown' }]));
    expect(delivery.body).toMatchObject({ outcome: 'skipped', reason: 'no_attribution', sale_id: null });
    expect(await t.count('sale_events')).toBe(0);
  });

  test("the click in the metadata wins over the session's promotion code", async () => {
    const { t, program } = await withCode('promo_1Q2w3E');
    const clickId = await t.click(program);
    await t.post('/api/v1/track/lead', { customer_key: 'user_42', click_id: clickId }, program.apiKey);
    const event = fixture('checkout-one-time', { CLICK_ID: clickId, CUSTOMER_KEY: 'user_42', PROGRAM_ID: String(program.id) });
    event.data.object.discounts = [{ promotion_code: 'promo_1Q2w3E' }];
    expect((await sendWebhook(t, program, event)).body.outcome).toBe('recorded');
    expect(await saleOf(t, 1)).toEqual({ partner_id: program.partnerId, code_sale: false });
  });

  test('a renewal invoice with an expanded discount attributes by its promotion code', async () => {
    const { t, program, b } = await withCode('promo_1Q2w3E');
    const event = fixture('invoice-renewal', { CLICK_ID: '', CUSTOMER_KEY: '', PROGRAM_ID: String(program.id) });
    const invoice = event.data.object;
    invoice.parent.subscription_details.metadata = { program_id: String(program.id) };
    invoice.customer_email = null;
    invoice.discounts = [{ id: 'di_1', object: 'discount', promotion_code: 'promo_1Q2w3E' }];
    expect((await sendWebhook(t, program, event)).body.outcome).toBe('recorded');
    expect(await saleOf(t, 1)).toEqual({ partner_id: b.id, code_sale: true });
  });
});

describe('codeSales in the per-partner report', () => {
  test('each partner counts the sales its codes attributed', async () => {
    const { t, program, b } = await withCode();
    await t.lead(program, 'cust_a');
    await sale(t, program.apiKey, { customer_key: 'cust_a' });
    await sale(t, program.apiKey, { transaction_id: 'in_2', coupon_code: 'SUMMER20' });
    await sale(t, program.apiKey, { transaction_id: 'in_3', customer_key: 'x', coupon_code: 'summer20' });
    const body = (await getReport(t, `/api/tracking/performance/${program.id}/partners`)).json();
    const byPartner = Object.fromEntries(body.data.map((r: { partnerId: number; sales: number; codeSales: number }) => [r.partnerId, [r.sales, r.codeSales]]));
    expect(byPartner).toEqual({ [program.partnerId]: [1, 0], [b.id]: [2, 2] });
  });
});
