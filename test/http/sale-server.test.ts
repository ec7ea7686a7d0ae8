import { describe, expect, test } from 'vitest';
import { PartnerkitClient } from '../../src/sdk/client.js';
import { PartnerkitError } from '../../src/sdk/errors.js';
import { fetchTransport, NetworkError, type Transport } from '../../src/sdk/transport.js';
import { withCustomer } from '../helpers/app.js';
import { saleFields } from '../helpers/factories.js';

/** A test app with customer cust_1, listening on 127.0.0.1 with an ephemeral port (closed when the test finishes). */
async function listening() {
  const { t, program } = await withCustomer();
  const url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, program, url };
}

describe('exactly-once over real connections', () => {
  test('25 concurrent identical sales from separate connections: one sale, one commission, 24 × 409 naming it', async () => {
    const { t, program, url } = await listening();
    const body = JSON.stringify(saleFields({ transaction_id: 'in_race', amount_cents: 2500 }));
    const responses = await Promise.all(
      Array.from({ length: 25 }, () =>
        fetch(`${url}/api/v1/track/sale`, {
          method: 'POST',
          body,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${program.apiKey}`, connection: 'close' },
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as any })),
      ),
    );
    const created = responses.filter((r) => r.status === 200);
    const duplicates = responses.filter((r) => r.status === 409);
    expect(created).toHaveLength(1);
    expect(duplicates).toHaveLength(24);
    const saleId = created[0].body.sale_id;
    for (const d of duplicates) expect(d.body.error).toMatchObject({ code: 'duplicate_transaction', details: { sale_id: saleId } });
    expect(await t.count('sale_events')).toBe(1);
    expect(await t.count('commissions')).toBe(1);
    expect(await t.count('sale_transactions')).toBe(1);
  });

  test('concurrent distinct sales are all recorded once (the batcher answers each one after its COMMIT)', async () => {
    const { t, program, url } = await listening();
    const client = new PartnerkitClient({ baseUrl: url, apiKey: program.apiKey });
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => client.trackSale({ customerExternalId: 'cust_1', amount: 1000 + i, invoiceId: `in_${i}` })),
    );
    expect(results.every((r) => r.status === 'recorded')).toBe(true);
    expect(new Set(results.map((r) => r.status === 'recorded' && r.saleId)).size).toBe(60);
    expect(await t.count('sale_events')).toBe(60);
    expect(await t.count('commissions')).toBe(60);
    const sums = await t.store.read((sql) =>
      sql.one<{ sales: number; commissions: number }>(
        'SELECT (SELECT sum(amount_cents) FROM sale_events)::BIGINT AS sales, (SELECT sum(amount_cents) FROM commissions)::BIGINT AS commissions',
      ),
    );
    // Σ(1000..1059) = 61,770; each commission is 20 % rounded half up.
    expect(sums).toEqual({ sales: 61_770, commissions: Array.from({ length: 60 }, (_, i) => Math.round((1000 + i) * 0.2)).reduce((a, b) => a + b) });
  });
});

describe('SDK trackSale against a listening server', () => {
  test('maps its fields to the endpoint and reports recorded, then already_recorded with the first sale id', async () => {
    const { t, program, url } = await listening();
    const client = new PartnerkitClient({ baseUrl: url, apiKey: program.apiKey });
    const input = {
      customerExternalId: 'cust_1', amount: 4999, invoiceId: 'in_sdk', currency: 'eur', isRecurring: true,
      saleType: 'subscription' as const, subscriptionId: 'sub_1', productId: 'pro', occurredAt: new Date('2026-03-01T11:00:00Z'),
    };
    expect(await client.trackSale(input)).toEqual({ status: 'recorded', saleId: 1, commissionId: 1, message: 'Sale and commission recorded' });
    expect(await client.trackSale(input)).toEqual({ status: 'already_recorded', saleId: 1, message: 'Transaction in_sdk was already recorded' });
    const row = await t.store.read((sql) => sql.one('SELECT * FROM sale_events'));
    expect(row).toMatchObject({
      transaction_id: 'in_sdk', amount_cents: 4999, currency: 'EUR', is_recurring: true, sale_type: 'subscription', subscription_id: 'sub_1', product_id: 'pro',
    });
    expect((row!.occurred_at as Date).toISOString()).toBe('2026-03-01T11:00:00.000Z');
  });

  test.each([0, -5, 10.5, Number.NaN])('rejects amount %s before any request', async (amount) => {
    let requests = 0;
    const transport: Transport = async () => {
      requests++;
      return { status: 200, headers: {}, body: {} };
    };
    const client = new PartnerkitClient({ transport, apiKey: 'pk_live_x' });
    await expect(client.trackSale({ customerExternalId: 'c', amount, invoiceId: 'in_1' })).rejects.toMatchObject({ code: 'invalid_request' });
    expect(requests).toBe(0);
  });

  test('errors come back as PartnerkitError carrying error.code (platform and typed envelopes)', async () => {
    const { t, program, url } = await listening();
    const client = new PartnerkitClient({ baseUrl: url, apiKey: program.apiKey });
    const unattributed = client.trackSale({ customerExternalId: 'nobody', amount: 100, invoiceId: 'in_x' });
    await expect(unattributed).rejects.toBeInstanceOf(PartnerkitError);
    await expect(unattributed).rejects.toMatchObject({ code: 'no_attribution', status: 400 });
    await expect(client.trackSale({ customerExternalId: 'cust_1', amount: 100, invoiceId: 'in_y', currency: 'gbp' })).rejects.toMatchObject({
      code: 'unsupported_currency', status: 422,
    });
    const keys = await t.admin('GET', `/programs/${program.id}/keys`);
    await t.admin('POST', `/programs/${program.id}/keys/${keys[0].id}/retire`);
    await expect(client.trackSale({ customerExternalId: 'cust_1', amount: 100, invoiceId: 'in_z' })).rejects.toMatchObject({
      code: 'api_key_rotation_required', status: 401,
    });
  });

  test('a network failure is retried with the same transaction id; the sale is recorded once', async () => {
    const { t, program, url } = await listening();
    const real = fetchTransport(url);
    let attempts = 0;
    const flaky: Transport = async (request) => {
      attempts++;
      if (attempts === 1) throw new NetworkError('connection reset');
      return real(request);
    };
    const client = new PartnerkitClient({ transport: flaky, apiKey: program.apiKey, retryDelayMs: 1 });
    expect((await client.trackSale({ customerExternalId: 'cust_1', amount: 100, invoiceId: 'in_retry' })).status).toBe('recorded');
    expect(attempts).toBe(2);
    expect(await t.count('sale_events')).toBe(1);
  });

  test('an unreachable server fails with NetworkError after the retries', async () => {
    const client = new PartnerkitClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'pk_live_x', retries: 1, retryDelayMs: 1 });
    await expect(client.trackSale({ customerExternalId: 'c', amount: 100, invoiceId: 'in_1' })).rejects.toBeInstanceOf(NetworkError);
  });
});

describe('SDK trackClick and trackLead against a listening server (camelCase in and out)', () => {
  test('a server-side click names its visitor by ip and userAgent; the lead binds customerExternalId to the click', async () => {
    const { t, program, url } = await listening();
    const client = new PartnerkitClient({ baseUrl: url, apiKey: program.apiKey });
    const visitor = { ref: program.refCode, ip: '203.0.113.9', userAgent: 'Browser/1', landingUrl: 'https://shop.example/' };
    const first = await client.trackClick(visitor);
    expect(first).toEqual({ clickId: expect.stringMatching(/^ck_\d+_/) });
    // The same visitor within the hour gets the same click; another User-Agent is another visitor.
    expect(await client.trackClick(visitor)).toEqual(first);
    expect(await client.trackClick({ ...visitor, userAgent: 'Browser/2' })).not.toEqual(first);

    const lead = await client.trackLead({ customerExternalId: 'user_9', clickId: first.clickId, email: 'Ann@Example.com', name: 'Ann' });
    expect(lead).toEqual({ customerId: expect.any(Number), message: 'Lead tracked' });
    expect(await client.trackLead({ customerExternalId: 'user_9', clickId: first.clickId })).toEqual({ customerId: lead.customerId, message: 'Customer already tracked' });
    const row = await t.store.read((sql) => sql.one('SELECT customer_key, email, name, click_ref FROM customers WHERE id = $1', [lead.customerId]));
    expect(row).toEqual({ customer_key: 'user_9', email: 'ann@example.com', name: 'Ann', click_ref: first.clickId });
  });
});
