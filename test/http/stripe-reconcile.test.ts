import { describe, expect, test, vi } from 'vitest';
import { ReconcileJob } from '../../src/domain/stripe/reconcile-job.js';
import { ADMIN_TOKEN, buildTestApp, type TestApp, type TestAppOptions } from '../helpers/app.js';
import { checkoutEvents, FAKE_STRIPE_KEY, fakeStripe } from '../helpers/fake-stripe.js';
import { fixture, sendWebhook } from '../helpers/stripe.js';

/**
 * Stripe reconciliation (docs/stripe-reconciliation.md) against a local server that answers
 * /v1/events as Stripe does: dry run, run, rerun, pagination, the 30-day limit, a refused key,
 * retries, the periodic job, two reconciliations at once.
 */

/** The test clock's now (2026-03-01T12:00:00Z) in Unix seconds: the events end a minute before it. */
const NOW_S = Date.parse('2026-03-01T12:00:00.000Z') / 1000;

/** A program with a lead (click in the fixtures' metadata) and the restricted key, and the fake API serving `count` checkouts. */
async function merchant(count: number, options: TestAppOptions = {}) {
  const fake = await fakeStripe();
  const t = await buildTestApp({ stripeApi: { base: fake.url }, ...options });
  const program = await t.program();
  const { clickId } = await t.lead(program, 'user_42');
  await t.admin('PATCH', `/programs/${program.id}`, { stripeApiKey: FAKE_STRIPE_KEY });
  const values = { CLICK_ID: clickId, CUSTOMER_KEY: 'user_42', PROGRAM_ID: String(program.id) };
  fake.events.push(...checkoutEvents(count, values, NOW_S - 60));
  return { t, program, fake };
}

async function reconcile(t: TestApp, programId: number, body: object = {}) {
  const response = await t.app.inject({ method: 'POST', url: `/api/programs/${programId}/stripe/reconcile`, payload: body, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return { status: response.statusCode, body: response.json(), text: response.body };
}

const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `evt_rec_${String(from + i).padStart(5, '0')}`);
const sorted = (values: string[]) => [...values].sort();

describe('stripe reconcile', () => {
  test('the key is stored, never shown: the program answers stripeApiKeySet', async () => {
    const { t, program } = await merchant(0);
    const shown = await t.app.inject({ method: 'GET', url: `/api/admin/programs/${program.id}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(shown.json().stripeApiKeySet).toBe(true);
    expect(shown.body).not.toContain(FAKE_STRIPE_KEY);
  });

  test('dry run: counts what would be recorded, records nothing', async () => {
    const { t, program, fake } = await merchant(3);
    await sendWebhook(t, program, fake.events[0]); // delivered as a webhook already
    const { status, body } = await reconcile(t, program.id, { dryRun: true });
    expect(status).toBe(200);
    expect(body).toEqual({
      programId: program.id, since: '2026-01-30T12:00:00.000Z', dryRun: true, checked: 3,
      alreadyRecorded: ['evt_rec_00001'], recordedNow: ['evt_rec_00003', 'evt_rec_00002'], skipped: [], failed: [],
    });
    expect(await t.count('webhook_events')).toBe(1);
    expect(await t.count('sale_events')).toBe(1);
  });

  test('run, then rerun: each missing event recorded once, the rerun finds them all recorded', async () => {
    const { t, program, fake } = await merchant(3);
    await sendWebhook(t, program, fake.events[0]);
    const first = (await reconcile(t, program.id)).body;
    expect([first.checked, first.alreadyRecorded, sorted(first.recordedNow), first.skipped, first.failed]).toEqual([3, ['evt_rec_00001'], ids(2, 3), [], []]);
    expect(await t.count('sale_events')).toBe(3);
    const again = (await reconcile(t, program.id)).body;
    expect([again.checked, sorted(again.alreadyRecorded), again.recordedNow]).toEqual([3, ids(1, 3), []]);
    expect([await t.count('sale_events'), await t.count('webhook_events')]).toEqual([3, 3]);
  });

  test('asks only for the handled event types created since `since`', async () => {
    const { t, program, fake } = await merchant(1);
    await reconcile(t, program.id, { since: '2026-02-28T00:00:00Z' });
    const query = fake.requests[0].query;
    expect(query.get('created[gte]')).toBe(String(Date.parse('2026-02-28T00:00:00Z') / 1000));
    expect([...query.entries()].filter(([name]) => name.startsWith('types')).map(([, v]) => v).sort()).toEqual([
      'charge.refunded', 'checkout.session.async_payment_succeeded', 'checkout.session.completed', 'invoice.paid', 'invoice.payment_succeeded', 'invoice_payment.paid',
    ]);
  });

  test('skipped events are reported with their reason', async () => {
    const { t, program, fake } = await merchant(1);
    fake.events[0].data = { object: { ...(fake.events[0].data as { object: object }).object, payment_status: 'unpaid' } };
    const body = (await reconcile(t, program.id)).body;
    expect(body.skipped).toEqual([{ eventId: 'evt_rec_00001', outcome: 'skipped', reason: 'payment_not_completed' }]);
  });

  test('pagination: 250 events in pages of 100, each recorded once', { timeout: 60_000 }, async () => {
    const { t, program, fake } = await merchant(250);
    const body = (await reconcile(t, program.id)).body;
    expect([body.checked, body.recordedNow.length, body.failed]).toEqual([250, 250, []]);
    expect(fake.requests.map((r) => [r.query.get('limit'), r.query.get('starting_after')])).toEqual([
      ['100', null], ['100', 'evt_rec_00151'], ['100', 'evt_rec_00051'],
    ]);
    expect(await t.count('sale_events')).toBe(250);
  });

  test('a renewal listed before its checkout (Stripe lists newest first) is recorded once the checkout is, on the same page or a later one', { timeout: 60_000 }, async () => {
    for (const between of [0, 150]) {
      const { t, program, fake } = await merchant(between);
      const values = { CLICK_ID: (await t.lead(program, 'user_7')).clickId, CUSTOMER_KEY: 'user_7', PROGRAM_ID: String(program.id) };
      const checkout = { ...fixture('checkout-subscription', values), created: NOW_S - 60 - between };
      const renewal = { ...fixture('invoice-renewal-no-metadata', values), created: NOW_S - 30 };
      fake.events.unshift(checkout);
      fake.events.push(renewal);
      const body = (await reconcile(t, program.id)).body;
      expect([body.checked, body.failed]).toEqual([between + 2, []]);
      const stored = await t.admin('GET', `/programs/${program.id}/webhook-events?limit=500`);
      const outcome = (id: string) => stored.find((e: { eventId: string }) => e.eventId === id);
      expect([outcome(checkout.id).outcome, outcome(renewal.id).outcome, outcome(renewal.id).reason]).toEqual(['recorded', 'recorded', null]);
      expect(await t.count('sale_events')).toBe(between + 2);
      const listed = fake.requests.map((r) => r.query.get('starting_after'));
      expect(listed).toHaveLength(between === 0 ? 1 : 2);
    }
  });

  test('since older than the 30 days Stripe keeps events is 400 naming since', async () => {
    const { t, program, fake } = await merchant(1);
    const { status, body } = await reconcile(t, program.id, { since: '2026-01-29T00:00:00Z' });
    expect(status).toBe(400);
    expect(body.error.details.fields).toEqual([{ field: 'since', message: 'Stripe keeps events for 30 days: since must be 2026-01-30T12:00:00.000Z or later' }]);
    expect(fake.requests).toEqual([]);
  });

  test('a program without a key is 409', async () => {
    const { t, program } = await merchant(1);
    await t.admin('PATCH', `/programs/${program.id}`, { stripeApiKey: null });
    const { status, body } = await reconcile(t, program.id);
    expect(status).toBe(409);
    expect(body.error.message).toBe(`Program ${program.id} has no Stripe API key; set one with: partnerkit program update --program ${program.id} --stripe-api-key rk_…`);
  });

  test('a key Stripe refuses: 502 naming the program, the key never in the answer', async () => {
    const { t, program } = await merchant(1);
    const wrong = 'rk_test_51WrongKeyWrongKey99';
    await t.admin('PATCH', `/programs/${program.id}`, { stripeApiKey: wrong });
    const { status, body, text } = await reconcile(t, program.id);
    expect(status).toBe(502);
    expect(body.error).toMatchObject({
      code: 'upstream_error',
      message: `Stripe refused the API key of program ${program.id} (401); set a restricted key that can read events with: partnerkit program update --program ${program.id} --stripe-api-key rk_…`,
    });
    expect(text).not.toContain('rk_test_51');
    expect(await t.count('webhook_events')).toBe(0);
  });

  test.each([
    ['500', [500, 500]],
    ['429 asking for a retry', [429, 429, 429]],
  ])('Stripe answering %s is retried with backoff by the library', { timeout: 30_000 }, async (_name, failures) => {
    const { t, program, fake } = await merchant(2);
    fake.failures.push(...failures);
    const body = (await reconcile(t, program.id)).body;
    expect(body.recordedNow).toHaveLength(2);
    expect(fake.requests).toHaveLength(failures.length + 1);
  });

  test('Stripe failing past the retries: 502 with its status, after four requests', { timeout: 30_000 }, async () => {
    const { t, program, fake } = await merchant(2);
    fake.failures.push(500, 500, 500, 500);
    const { status, body } = await reconcile(t, program.id);
    expect(status).toBe(502);
    expect(body.error.message).toBe(`Stripe's API failed for program ${program.id} (status 500, StripeAPIError) after 3 retries; try again later`);
    expect(fake.requests).toHaveLength(4);
  });

  test('the periodic job reconciles every program with a key, round after round', async () => {
    const { t, program } = await merchant(5);
    const other = await t.program(); // no key: not read
    const lines: string[] = [];
    const job = new ReconcileJob({ ...t.deps, stripeApi: t.deps.stripeApi! }, 50, (line) => lines.push(line)).start();
    await vi.waitFor(() => expect(lines.length).toBeGreaterThanOrEqual(2), { timeout: 10_000 });
    await job.stop();
    expect(lines.slice(0, 2)).toEqual([
      `stripe reconcile: program ${program.id}: 5 checked, 5 recorded now, 0 skipped, 0 failed`,
      `stripe reconcile: program ${program.id}: 5 checked, 0 recorded now, 0 skipped, 0 failed`,
    ]);
    expect(lines.some((line) => line.includes(`program ${other.id}:`))).toBe(false);
    expect(await t.count('sale_events')).toBe(5);
  });

  test('two jobs sharing the store take turns: one runs the round', async () => {
    const { t } = await merchant(3);
    const lines: string[] = [];
    const deps = { ...t.deps, stripeApi: t.deps.stripeApi! };
    const [a, b] = [new ReconcileJob(deps, 60_000, (l) => lines.push(`a ${l}`)), new ReconcileJob(deps, 60_000, (l) => lines.push(`b ${l}`))];
    await Promise.all([a.runOnce(), b.runOnce()]);
    expect(lines).toHaveLength(1);
  });

  test('two reconciliations at once, and a webhook meanwhile: one record per event', { timeout: 60_000 }, async () => {
    const { t, program, fake } = await merchant(120);
    const [one, two] = await Promise.all([reconcile(t, program.id), reconcile(t, program.id), sendWebhook(t, program, fake.events[7])]);
    expect(one.body.failed).toEqual([]);
    expect(two.body.failed).toEqual([]);
    expect([await t.count('webhook_events'), await t.count('sale_events')]).toEqual([120, 120]);
    const recorded = [...one.body.recordedNow, ...two.body.recordedNow];
    expect(new Set(recorded).size).toBe(recorded.length);
  });
});
