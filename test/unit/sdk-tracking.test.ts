import { describe, expect, test } from 'vitest';
import { PartnerkitClient } from '../../src/sdk/client.js';
import type { ApiRequest, ApiResponse } from '../../src/sdk/transport.js';

/** A client whose transport records each request and answers with `reply` (docs/sdk.md#names-on-each-surface-and-the-tracking-calls). */
function recording(reply: ApiResponse) {
  const sent: ApiRequest[] = [];
  const client = new PartnerkitClient({
    transport: async (request) => {
      sent.push(request);
      return reply;
    },
    apiKey: 'pk_live_x',
  });
  return { client, sent };
}

const ok = (body: unknown): ApiResponse => ({ status: 200, headers: {}, body });

describe('SDK tracking calls: camelCase in and out, the endpoint names on the wire', () => {
  test('trackClick sends ref, landing_url, referrer, test, ip and user_agent, and answers clickId', async () => {
    const { client, sent } = recording(ok({ click_id: 'ck_1_abcdefghijklmnopqrstuv' }));
    const result = await client.trackClick({
      ref: 'k3xq9aa2mz', landingUrl: 'https://shop.example/', referrer: 'https://blog.example/', test: false, ip: '203.0.113.9', userAgent: 'UA/1',
    });
    expect(result).toEqual({ clickId: 'ck_1_abcdefghijklmnopqrstuv' });
    expect(sent).toEqual([{
      method: 'POST',
      path: '/api/v1/track/click',
      headers: { authorization: 'Bearer pk_live_x' },
      body: { ref: 'k3xq9aa2mz', landing_url: 'https://shop.example/', referrer: 'https://blog.example/', test: false, ip: '203.0.113.9', user_agent: 'UA/1' },
    }]);
  });

  test('trackClick leaves out the fields not given', async () => {
    const { client, sent } = recording(ok({ click_id: 'ck_1_abcdefghijklmnopqrstuv' }));
    await client.trackClick({ ref: 'k3xq9aa2mz' });
    expect(sent[0].body).toEqual({ ref: 'k3xq9aa2mz' });
  });

  test('trackLead sends customer_key, click_id, email and name, and answers customerId and message', async () => {
    const { client, sent } = recording(ok({ success: true, customer_id: 7, message: 'Lead tracked' }));
    const result = await client.trackLead({ customerExternalId: 'user_42', clickId: 'ck_1_abcdefghijklmnopqrstuv', email: 'ann@example.com', name: 'Ann' });
    expect(result).toEqual({ customerId: 7, message: 'Lead tracked' });
    expect(sent).toEqual([{
      method: 'POST',
      path: '/api/v1/track/lead',
      headers: { authorization: 'Bearer pk_live_x' },
      body: { customer_key: 'user_42', click_id: 'ck_1_abcdefghijklmnopqrstuv', email: 'ann@example.com', name: 'Ann' },
    }]);
  });

  test('trackLead with a test key answers customerId null', async () => {
    const { client, sent } = recording(ok({ success: true, customer_id: null, message: 'Test mode: lead validated, nothing recorded' }));
    expect(await client.trackLead({ customerExternalId: 'user_42', clickId: 'ck_1_x' })).toEqual({
      customerId: null, message: 'Test mode: lead validated, nothing recorded',
    });
    expect(sent[0].body).toEqual({ customer_key: 'user_42', click_id: 'ck_1_x' });
  });

  test('sendClick and sendLead post the body as given and answer the endpoint body unchanged', async () => {
    const click = recording(ok({ click_id: 'ck_1_abcdefghijklmnopqrstuv' }));
    expect(await click.client.sendClick({ ref: 'k3xq9aa2mz', landing_url: 'https://shop.example/' })).toEqual({ click_id: 'ck_1_abcdefghijklmnopqrstuv' });
    expect(click.sent[0].body).toEqual({ ref: 'k3xq9aa2mz', landing_url: 'https://shop.example/' });
    const lead = recording(ok({ success: true, customer_id: 7, message: 'Lead tracked' }));
    expect(await lead.client.sendLead({ customer_key: 'user_42', click_id: 'ck_1_x' })).toEqual({ success: true, customer_id: 7, message: 'Lead tracked' });
    expect(lead.sent[0].body).toEqual({ customer_key: 'user_42', click_id: 'ck_1_x' });
  });

  test('trackSale answers a 409 as already_recorded with the first sale id; other errors throw', async () => {
    const duplicate = recording({
      status: 409,
      headers: {},
      body: { data: null, error: { status: 409, name: 'ConflictError', message: 'Transaction in_1 was already recorded', details: { sale_id: 3 }, code: 'duplicate_transaction' } },
    });
    expect(await duplicate.client.trackSale({ customerExternalId: 'user_42', amount: 4999, invoiceId: 'in_1' })).toEqual({
      status: 'already_recorded', saleId: 3, message: 'Transaction in_1 was already recorded',
    });
    expect(duplicate.sent[0].body).toEqual({ transaction_id: 'in_1', amount_cents: 4999, currency: 'USD', customer_key: 'user_42' });
    const refused = recording({
      status: 400,
      headers: {},
      body: { data: null, error: { status: 400, name: 'AttributionError', message: 'No customer', details: null, code: 'no_attribution' } },
    });
    await expect(refused.client.trackSale({ customerExternalId: 'nobody', amount: 100, invoiceId: 'in_2' })).rejects.toMatchObject({ code: 'no_attribution', status: 400 });
  });
});
