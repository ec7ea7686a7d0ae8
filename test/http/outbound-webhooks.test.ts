import { Webhook } from 'standardwebhooks';
import { describe, expect, onTestFinished, test, vi } from 'vitest';
import { onOutboxWrites, type FreshDelivery } from '../../src/domain/outbound/events.js';
import { DEFAULT_WORKER_SETTINGS, DeliveryWorker, RETRY_DELAYS_SECONDS } from '../../src/domain/outbound/worker.js';
import { ADMIN_TOKEN, buildTestApp, freezeDate, type ProgramFixture, type TestApp } from '../helpers/app.js';
import { receiver, type Answer, type Received } from '../helpers/receiver.js';

/** A request to the admin API of outbound webhooks with the admin token: its status and body. */
async function call(t: TestApp, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) {
  const response = await t.app.inject({ method, url, payload: payload as object, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return { status: response.statusCode, body: response.json() };
}

async function ok(t: TestApp, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) {
  const { status, body } = await call(t, method, url, payload);
  if (status !== 200) throw new Error(`${method} ${url} → ${status} ${JSON.stringify(body)}`);
  return body;
}

/** The delivery worker over the test app's store and clock, stopped when the test finishes. */
function workerOf(t: TestApp): DeliveryWorker {
  const worker = new DeliveryWorker(t.deps);
  onTestFinished(() => worker.stop());
  return worker;
}

/** An app with a program (no hold, manual approval), an endpoint on a receiver, and a worker. */
async function setUp(answer?: (request: Received, n: number) => Answer, endpoint: Record<string, unknown> = {}) {
  freezeDate();
  const t = await buildTestApp();
  const program = await t.program({ holdDays: 0, approval: 'manual' });
  const hooks = await receiver(answer);
  const created = await ok(t, 'POST', `/api/programs/${program.id}/webhook-endpoints`, { url: hooks.url, ...endpoint });
  return { t, program, hooks, endpoint: created, worker: workerOf(t) };
}

/** The body as the standardwebhooks package verifies it with `secret`, at the service clock's time (the receiver's clock). */
function verified(t: TestApp, secret: string, request: Received) {
  vi.setSystemTime(t.clock.now());
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as any;
}

const types = (hooks: { events(): any[] }) => hooks.events().map((e) => e.type);

async function saleAfterLead(t: TestApp, program: ProgramFixture, transactionId = 'in_1') {
  await t.lead(program, `cust_${transactionId}`);
  return t.sale(program, { transaction_id: transactionId, customer_key: `cust_${transactionId}` });
}

describe('outbound webhooks: the events', () => {
  test('a lead and a sale send lead.created, sale.created and commission.created, signed as Standard Webhooks verify', async () => {
    const { t, program, hooks, endpoint, worker } = await setUp();
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const sale = await saleAfterLead(t, program);
    await worker.runDue();

    expect(types(hooks)).toEqual(['lead.created', 'sale.created', 'commission.created']);
    const [lead, saleEvent, commission] = hooks.received.map((r) => verified(t, endpoint.secret, r));
    expect(lead).toMatchObject({ type: 'lead.created', livemode: true, program_id: program.id, data: { customerKey: 'cust_in_1', enrollmentId: program.partnerProgramId } });
    expect(saleEvent).toEqual({
      id: hooks.received[1].headers['webhook-id'], type: 'sale.created', created_at: '2026-03-01T12:00:00.000Z', livemode: true, program_id: program.id,
      data: {
        id: sale.sale_id, programId: program.id, partnerId: program.partnerId, enrollmentId: program.partnerProgramId, customerId: expect.any(Number),
        transactionId: 'in_1', amountCents: 4999, taxCents: null, currency: 'USD', saleType: 'payment', isRecurring: false, subscriptionId: null,
        productId: null, source: 'api', status: 'paid', occurredAt: null, receivedAt: '2026-03-01T12:00:00.000Z', commissionId: sale.commission_id,
      },
    });
    expect(commission.data).toEqual({
      id: sale.commission_id, programId: program.id, partnerId: program.partnerId, saleId: sale.sale_id, type: 'sale', amountCents: 1000, currency: 'USD',
      status: 'pending', holdUntil: '2026-03-01T12:00:00.000Z', createdAt: '2026-03-01T12:00:00.000Z', payoutId: null, paidAt: null, reason: null,
    });
    const headers = hooks.received[1].headers;
    expect(headers['webhook-id']).toMatch(/^evt_/);
    expect(headers['webhook-timestamp']).toBe(String(Date.parse('2026-03-01T12:00:00.000Z') / 1000));
    expect(headers['content-type']).toBe('application/json');
    expect(headers['user-agent']).toMatch(/^partnerkit\/\d+\.\d+\.\d+$/);
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(hooks.received[1].body, headers as Record<string, string>)).toThrow();
  });

  test('a test-mode sale is sent with livemode false', async () => {
    const { t, program, hooks, endpoint, worker } = await setUp();
    const sale = await t.sale(program, { transaction_id: 'in_t', customer_key: 'nobody' }, program.testApiKey);
    await worker.runDue();
    expect(hooks.received.map((r) => verified(t, endpoint.secret, r))).toEqual([
      expect.objectContaining({ type: 'sale.created', livemode: false, data: expect.objectContaining({ id: sale.data.eventId, transactionId: 'in_t', amountCents: 4999 }) }),
    ]);
  });

  test('a refund sends refund.created and commission.updated with the recomputed amount', async () => {
    const { t, program, hooks, endpoint, worker } = await setUp(undefined, { events: ['refund.created', 'commission.updated'] });
    const sale = await saleAfterLead(t, program);
    const refund = await t.post('/api/v1/track/refund', { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 999 }, program.apiKey);
    expect(refund.statusCode).toBe(200);
    await worker.runDue();
    const events = hooks.received.map((r) => verified(t, endpoint.secret, r));
    expect(events.map((e) => e.type).sort()).toEqual(['commission.updated', 'refund.created']);
    expect(events.find((e) => e.type === 'refund.created').data).toMatchObject({ saleId: sale.sale_id, refundId: 're_1', amountCents: 999, completesSale: false });
    expect(events.find((e) => e.type === 'commission.updated').data).toMatchObject({ id: sale.commission_id, amountCents: 800, status: 'pending' });
  });

  test('approve and reject send commission.updated with the new status', async () => {
    const { t, program, hooks, worker } = await setUp(undefined, { events: ['commission.updated'] });
    const first = await saleAfterLead(t, program, 'in_1');
    const second = await saleAfterLead(t, program, 'in_2');
    await ok(t, 'POST', `/api/programs/${program.id}/commissions/approve`, { ids: [first.commission_id] });
    await ok(t, 'POST', `/api/programs/${program.id}/commissions/reject`, { ids: [second.commission_id], reason: 'fraud' });
    await worker.runDue();
    expect(hooks.events().map((e) => [e.type, e.data.id, e.data.status, e.data.reason]).sort()).toEqual([
      ['commission.updated', first.commission_id, 'approved', null],
      ['commission.updated', second.commission_id, 'rejected', 'fraud'],
    ]);
  });

  test('a payout sends payout.created, payout.paid and payout.canceled, each with its commissions updated', async () => {
    const { t, program, hooks, worker } = await setUp(undefined, { events: ['payout.created', 'payout.paid', 'payout.canceled', 'commission.updated'] });
    const sale = await saleAfterLead(t, program);
    await ok(t, 'POST', `/api/programs/${program.id}/commissions/approve`, { ids: [sale.commission_id] });
    const { payouts: [payout] } = await ok(t, 'POST', `/api/programs/${program.id}/payouts`);
    await ok(t, 'POST', `/api/payouts/${payout.id}/cancel`);
    const { payouts: [again] } = await ok(t, 'POST', `/api/programs/${program.id}/payouts`);
    await ok(t, 'POST', `/api/payouts/${again.id}/mark-paid`);
    await worker.runDue();
    const events = hooks.events().sort((a, b) => a.data.id - b.data.id || a.type.localeCompare(b.type));
    const payoutEvents = events.filter((e) => e.type.startsWith('payout.')).map((e) => [e.type, e.data.id, e.data.status, e.data.commissionIds]);
    expect(payoutEvents).toEqual([
      ['payout.canceled', payout.id, 'canceled', [sale.commission_id]],
      ['payout.created', payout.id, 'processing', [sale.commission_id]],
      ['payout.created', again.id, 'processing', [sale.commission_id]],
      ['payout.paid', again.id, 'paid', [sale.commission_id]],
    ]);
    const statuses = hooks.events().filter((e) => e.type === 'commission.updated').map((e) => e.data.status);
    expect(statuses.sort()).toEqual(['approved', 'approved', 'paid', 'processing', 'processing']);
  });

  test('an enrollment sends partner.enrolled', async () => {
    const { t, program, hooks, worker } = await setUp();
    const partner = await t.partner();
    const enrollment = await t.enroll(program.id, partner.id);
    await worker.runDue();
    expect(hooks.events()).toEqual([
      expect.objectContaining({ type: 'partner.enrolled', data: { id: enrollment.id, programId: program.id, partnerId: partner.id, refCode: enrollment.refCode, createdAt: '2026-03-01T12:00:00.000Z' } }),
    ]);
  });

  test('--events filters: an endpoint gets only its types; a duplicate sale (409) sends nothing', async () => {
    const { t, program, hooks, worker } = await setUp(undefined, { events: ['sale.created'] });
    await saleAfterLead(t, program);
    const duplicate = await t.post('/api/v1/track/sale', { transaction_id: 'in_1', amount_cents: 4999, customer_key: 'cust_in_1' }, program.apiKey);
    expect(duplicate.statusCode).toBe(409);
    await worker.runDue();
    expect(types(hooks)).toEqual(['sale.created']);
    expect(await t.count('outbox_messages')).toBe(1);
  });

  test('a program without endpoints writes nothing to the outbox', async () => {
    freezeDate();
    const t = await buildTestApp();
    const program = await t.program();
    await saleAfterLead(t, program);
    expect(await t.count('outbox_messages')).toBe(0);
    expect(await t.count('outbox_deliveries')).toBe(0);
  });
});

describe('outbound webhooks: delivery', () => {
  test('one process: a sale\'s events are sent as it commits, with no poll to find them; a shared database sends them at the next claim', async () => {
    const t = await buildTestApp();
    const program = await t.program({ holdDays: 0 });
    const hooks = await receiver();
    await ok(t, 'POST', `/api/programs/${program.id}/webhook-endpoints`, { url: hooks.url, events: ['sale.created'] });
    const worker = new DeliveryWorker(t.deps, { ...DEFAULT_WORKER_SETTINGS, pollMs: 3_600_000, alonePollMs: 3_600_000 }).start();
    onTestFinished(() => worker.stop());
    await worker.runDue(); // the first poll, made at start: nothing due
    await saleAfterLead(t, program, 'in_fresh');
    if (t.store.shared) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hooks.received).toHaveLength(0);
      await worker.runDue();
    }
    await hooks.waitFor(1);
    expect(hooks.events().map((e) => [e.type, e.data.transactionId])).toEqual([['sale.created', 'in_fresh']]);
    await worker.runDue();
    const [endpoint] = await ok(t, 'GET', `/api/programs/${program.id}/webhook-endpoints`);
    const deliveries = await ok(t, 'GET', `/api/webhook-endpoints/${endpoint.id}/deliveries`);
    expect(deliveries.map((d: { status: string; attempts: number }) => [d.status, d.attempts])).toEqual([['delivered', 1]]);
    expect(hooks.received).toHaveLength(1);
  });

  test('deliveries a worker was handed and never wrote (its process stopped first) are written and sent by the next worker, once', async () => {
    const t = await buildTestApp();
    const program = await t.program({ holdDays: 0 });
    const hooks = await receiver();
    const endpoint = await ok(t, 'POST', `/api/programs/${program.id}/webhook-endpoints`, { url: hooks.url, events: ['sale.created'] });
    // A worker that takes what it is handed and dies before writing it; a shared database writes deliveries with their events.
    const handed: FreshDelivery[] = [];
    const stopListening = onOutboxWrites(t.store, { fresh: (fresh) => handed.push(...fresh), due: () => {} });
    await saleAfterLead(t, program, 'in_left');
    stopListening();
    expect(handed).toHaveLength(t.store.shared ? 0 : 1);
    expect(await t.count('outbox_deliveries')).toBe(t.store.shared ? 1 : 0);
    expect(await t.count('outbox_messages', 'targets IS NOT NULL')).toBe(t.store.shared ? 0 : 1);

    const worker = new DeliveryWorker(t.deps, { ...DEFAULT_WORKER_SETTINGS, pollMs: 3_600_000, alonePollMs: 3_600_000 }).start();
    onTestFinished(() => worker.stop());
    await worker.runDue();
    await hooks.waitFor(1);
    await worker.runDue();
    expect(hooks.events().map((e) => [e.type, e.data.transactionId])).toEqual([['sale.created', 'in_left']]);
    const deliveries = await ok(t, 'GET', `/api/webhook-endpoints/${endpoint.id}/deliveries`);
    expect(deliveries.map((d: { status: string; attempts: number }) => [d.status, d.attempts])).toEqual([['delivered', 1]]);
    expect(await t.count('outbox_messages', 'targets IS NOT NULL')).toBe(0);
  });

  test('a recording that fails is made again a second later: the attempt is recorded once, and the event is not sent again', async () => {
    const t = await buildTestApp();
    const program = await t.program({ holdDays: 0 });
    const hooks = await receiver();
    const endpoint = await ok(t, 'POST', `/api/programs/${program.id}/webhook-endpoints`, { url: hooks.url, events: ['sale.created'] });
    const worker = new DeliveryWorker(t.deps, { ...DEFAULT_WORKER_SETTINGS, pollMs: 50, alonePollMs: 3_600_000 }).start();
    onTestFinished(() => worker.stop());
    await worker.runDue(); // the first poll, made at start: nothing due
    await t.store.transaction((sql) => sql.run('ALTER TABLE outbox_attempts RENAME TO outbox_attempts_offline'));
    await saleAfterLead(t, program, 'in_unrecorded');
    await hooks.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the recording, a second after the answer, fails
    await t.store.transaction((sql) => sql.run('ALTER TABLE outbox_attempts_offline RENAME TO outbox_attempts'));
    await worker.runDue();
    const deliveries = await ok(t, 'GET', `/api/webhook-endpoints/${endpoint.id}/deliveries`);
    expect(deliveries.map((d: { status: string; attempts: number }) => [d.status, d.attempts])).toEqual([['delivered', 1]]);
    expect(await t.count('outbox_attempts')).toBe(1);
    expect(hooks.received).toHaveLength(1);
  });

  test('one process: a test ping and a redelivery are claimed as they commit, with no poll; a shared database at the next claim', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const hooks = await receiver();
    const endpoint = await ok(t, 'POST', `/api/programs/${program.id}/webhook-endpoints`, { url: hooks.url });
    const worker = new DeliveryWorker(t.deps, { ...DEFAULT_WORKER_SETTINGS, pollMs: 3_600_000, alonePollMs: 3_600_000 }).start();
    onTestFinished(() => worker.stop());
    await worker.runDue(); // the first poll, made at start: nothing due
    const claimedAfter = async (arrived: number) => {
      if (t.store.shared) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(hooks.received).toHaveLength(arrived - 1);
        await worker.runDue();
      }
      await hooks.waitFor(arrived);
    };
    const { eventId } = await ok(t, 'POST', `/api/webhook-endpoints/${endpoint.id}/test`);
    await claimedAfter(1);
    await ok(t, 'POST', `/api/webhook-events/${eventId}/redeliver`, {});
    await claimedAfter(2);
    expect(hooks.events().map((e) => [e.type, e.id])).toEqual([['ping', eventId], ['ping', eventId]]);
  });

  test('a failing endpoint is retried 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h later, then the delivery is failed', async () => {
    const { t, hooks, endpoint, worker } = await setUp(() => ({ status: 500, body: 'x'.repeat(2000) }), { events: ['ping'] });
    const { eventId } = await ok(t, 'POST', `/api/webhook-endpoints/${endpoint.id}/test`);
    await worker.runDue();
    expect(hooks.received).toHaveLength(1);
    for (const [i, seconds] of RETRY_DELAYS_SECONDS.entries()) {
      t.clock.set(new Date(t.clock.now().getTime() + (seconds - 1) * 1000).toISOString());
      await worker.runDue();
      expect(hooks.received).toHaveLength(i + 1); // not yet due
      t.clock.set(new Date(t.clock.now().getTime() + 1000).toISOString());
      await worker.runDue();
      expect(hooks.received).toHaveLength(i + 2);
    }
    expect(new Set(hooks.received.map((r) => r.headers['webhook-id']))).toEqual(new Set([eventId]));
    expect(verified(t, endpoint.secret, hooks.received[7])).toMatchObject({ type: 'ping', data: { endpointId: endpoint.id } });
    const [delivery] = await ok(t, 'GET', `/api/webhook-endpoints/${endpoint.id}/deliveries`);
    expect(delivery).toMatchObject({ eventId, eventType: 'ping', status: 'failed', attempts: 8, nextAttemptAt: null });
    expect(delivery.lastAttempt).toMatchObject({ statusCode: 500, error: null, response: 'x'.repeat(1024) });
    t.clock.set('2027-01-01T00:00:00.000Z');
    await worker.runDue();
    expect(hooks.received).toHaveLength(8);
  });

  test('410 Gone disables the endpoint at once', async () => {
    const { t, hooks, endpoint, worker } = await setUp(() => 410);
    await ok(t, 'POST', `/api/webhook-endpoints/${endpoint.id}/test`);
    await ok(t, 'POST', `/api/webhook-endpoints/${endpoint.id}/test`);
    await worker.runDue();
    const [listed] = await ok(t, 'GET', `/api/programs/${endpoint.programId}/webhook-endpoints`);
    expect(listed).toMatchObject({ enabled: false, disabledReason: 'The endpoint answered 410 Gone' });
    const deliveries = await ok(t, 'GET', `/api/webhook-endpoints/${endpoint.id}/deliveries`);
    expect(deliveries.map((d: any) => d.status)).toEqual(['failed', 'failed']);
    t.clock.set('2026-03-02T00:00:00.000Z');
    await worker.runDue();
    expect(hooks.received.length).toBeLessThanOrEqual(2);
  });

  test('an endpoint that hangs or resets delays no other endpoint', async () => {
    const { t, program, hooks, worker } = await setUp(undefined, { events: ['sale.created'] });
    const hanging = await receiver(() => 'hang');
    const resetting = await receiver(() => 'reset');
    await ok(t, 'POST', `/api/programs/${program.id}/webhook-endpoints`, { url: hanging.url, events: ['sale.created'] });
    await ok(t, 'POST', `/api/programs/${program.id}/webhook-endpoints`, { url: resetting.url, events: ['sale.created'] });
    worker.start();
    for (let i = 1; i <= 3; i++) await saleAfterLead(t, program, `in_${i}`);
    await hooks.waitFor(3);
    await hanging.waitFor(3);
    expect(hooks.events().map((e) => e.data.transactionId).sort()).toEqual(['in_1', 'in_2', 'in_3']);
    // The sales were answered while the hanging endpoint held its requests.
    expect(await t.count('sale_events')).toBe(3);
  });

  test("a URL's user name and password arrive as basic authentication, not in the request line", async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const hooks = await receiver();
    const endpoint = await ok(t, 'POST', `/api/programs/${program.id}/webhook-endpoints`, { url: hooks.url.replace('http://', 'http://shop%40acme:p%C3%A4ss@'), events: ['ping'] });
    await ok(t, 'POST', `/api/webhook-endpoints/${endpoint.id}/test`);
    await workerOf(t).runDue();
    expect(hooks.received).toHaveLength(1);
    expect(hooks.received[0].headers.authorization).toBe(`Basic ${Buffer.from('shop@acme:päss').toString('base64')}`);
  });

  test('the delivery log names the network error of an endpoint that resets or refuses the connection', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const resetting = await receiver(() => 'reset');
    const errors: Record<string, string> = {};
    for (const url of [resetting.url, 'http://127.0.0.1:9/hooks']) {
      const endpoint = await ok(t, 'POST', `/api/programs/${program.id}/webhook-endpoints`, { url, events: ['ping'] });
      await ok(t, 'POST', `/api/webhook-endpoints/${endpoint.id}/test`);
      await workerOf(t).runDue();
      const [delivery] = await ok(t, 'GET', `/api/webhook-endpoints/${endpoint.id}/deliveries`);
      expect(delivery).toMatchObject({ status: 'pending', attempts: 1 });
      errors[url === resetting.url ? 'reset' : 'refused'] = delivery.lastAttempt.error;
    }
    expect(errors).toEqual({ reset: 'other side closed', refused: 'connect ECONNREFUSED 127.0.0.1:9' });
  });

  test('redeliver sends an event again, also a failed one; an unknown event is 404', async () => {
    let fail = true;
    const { t, hooks, endpoint, worker } = await setUp(() => (fail ? 410 : 204));
    const { eventId } = await ok(t, 'POST', `/api/webhook-endpoints/${endpoint.id}/test`);
    await worker.runDue();
    fail = false;
    await ok(t, 'PATCH', `/api/webhook-endpoints/${endpoint.id}`, { enabled: true });
    const again = await ok(t, 'POST', `/api/webhook-events/${eventId}/redeliver`, {});
    expect(again).toEqual({ eventId, deliveries: [expect.any(Number)] });
    await worker.runDue();
    expect(hooks.received.map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId]);
    expect(hooks.received[1].body).toBe(hooks.received[0].body);
    const deliveries = await ok(t, 'GET', `/api/webhook-endpoints/${endpoint.id}/deliveries`);
    expect(deliveries.map((d: any) => d.status)).toEqual(['delivered', 'failed']);
    expect(await call(t, 'POST', '/api/webhook-events/evt_unknown/redeliver', {})).toEqual({
      status: 404, body: expect.objectContaining({ error: expect.objectContaining({ code: 'not_found', message: 'Webhook event evt_unknown not found' }) }),
    });
  });

  test('after a rotation both secrets sign for 24 hours, then only the new one', async () => {
    const { t, hooks, endpoint, worker } = await setUp();
    const rotated = await ok(t, 'POST', `/api/webhook-endpoints/${endpoint.id}/rotate-secret`);
    expect(rotated.secret).not.toBe(endpoint.secret);
    await ok(t, 'POST', `/api/webhook-endpoints/${endpoint.id}/test`);
    await worker.runDue();
    expect(hooks.received[0].headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(verified(t, endpoint.secret, hooks.received[0]).type).toBe('ping');
    expect(verified(t, rotated.secret, hooks.received[0]).type).toBe('ping');
    t.clock.set('2026-03-02T12:00:00.001Z');
    await ok(t, 'POST', `/api/webhook-endpoints/${endpoint.id}/test`);
    await worker.runDue();
    expect(hooks.received[1].headers['webhook-signature']).toMatch(/^v1,\S+$/);
    expect(verified(t, rotated.secret, hooks.received[1]).type).toBe('ping');
    expect(() => verified(t, endpoint.secret, hooks.received[1])).toThrow();
  });
});

describe('outbound webhooks: endpoints', () => {
  test.each([
    ['ftp://example.com/hooks', 'url'],
    [`https://example.com/${'a'.repeat(2030)}`, 'url'],
    ['not a url', 'url'],
  ])('%s is 400 naming the field; nothing is stored', async (url, field) => {
    freezeDate();
    const t = await buildTestApp();
    const program = await t.program();
    const { status, body } = await call(t, 'POST', `/api/programs/${program.id}/webhook-endpoints`, { url });
    expect(status).toBe(400);
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.details.fields.map((f: any) => f.field)).toEqual([field]);
    expect(await t.count('webhook_endpoints')).toBe(0);
  });

  test('an unknown event type is 400 naming events', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const { status, body } = await call(t, 'POST', `/api/programs/${program.id}/webhook-endpoints`, { url: 'https://example.com/', events: ['click.created'] });
    expect(status).toBe(400);
    expect(body.error.details.fields[0].field).toMatch(/^events/);
  });

  test('the secret and URL credentials are never listed; update and remove', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const created = await ok(t, 'POST', `/api/programs/${program.id}/webhook-endpoints`, { url: 'https://user:pw@example.com/hooks', description: 'shop' });
    expect(created.url).toBe('https://example.com/hooks');
    const listed = await ok(t, 'GET', `/api/programs/${program.id}/webhook-endpoints`);
    expect(listed).toEqual([
      { id: created.id, programId: program.id, url: 'https://example.com/hooks', description: 'shop', events: null, enabled: true, disabledReason: null, createdAt: expect.any(String) },
    ]);
    expect(JSON.stringify(listed)).not.toContain('whsec_');
    const updated = await ok(t, 'PATCH', `/api/webhook-endpoints/${created.id}`, { events: ['sale.created'], enabled: false });
    expect(updated).toMatchObject({ events: ['sale.created'], enabled: false, disabledReason: 'Disabled by a member' });
    await ok(t, 'DELETE', `/api/webhook-endpoints/${created.id}`);
    expect(await ok(t, 'GET', `/api/programs/${program.id}/webhook-endpoints`)).toEqual([]);
    expect((await call(t, 'PATCH', `/api/webhook-endpoints/${created.id}`, { enabled: true })).status).toBe(404);
  });
});
