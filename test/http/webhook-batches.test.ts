import { describe, expect, test } from 'vitest';
import { planEvent } from '../../src/domain/stripe/plan.js';
import { reattribute } from '../../src/domain/stripe/rerun.js';
import { applyDelivery, applyRerun, type Applied } from '../../src/domain/stripe/store-events.js';
import { parseEnvelope } from '../../src/domain/stripe/schema.js';
import { buildTestApp, type ProgramFixture, type TestApp } from '../helpers/app.js';
import { fixture, stripeMerchant } from '../helpers/stripe.js';

/**
 * Deliveries submitted in one tick are decided and stored as one batch in one transaction
 * (store-events.ts): every attribution lookup is one statement for the batch, so each delivery must still get
 * its own customer, its own redelivery answer and its own sale. That they did share one batch is
 * checked on the writer's statements: one append of their events, in one committed transaction.
 */
type Event = { id: string; type: string; data: { object: any } };

/** The writer's BEGINs, COMMITs and webhook-event appends, in order, while a recording runs (a rollback leaves a BEGIN without its COMMIT). */
function writerLog() {
  let entries: string[] | undefined;
  const observe = (sql: string) => {
    const statement = /^\s*(BEGIN|COMMIT)\b/i.exec(sql)?.[1].toUpperCase() ?? (sql === 'APPEND webhook_events' ? 'APPEND webhook_events' : undefined);
    if (statement && entries) entries.push(statement);
  };
  /** Records the statements the writer runs while `work` runs. */
  const during = async <T>(work: () => Promise<T>): Promise<{ value: T; statements: string[] }> => {
    entries = [];
    try {
      return { value: await work(), statements: entries };
    } finally {
      entries = undefined;
    }
  };
  return { observe, during };
}

/** One transaction holding one append of the events: the batch the test means. */
const ONE_BATCH = ['BEGIN', 'APPEND webhook_events', 'COMMIT'];

async function merchant() {
  const log = writerLog();
  const t = await buildTestApp({ observeWrites: log.observe });
  const m = await stripeMerchant(t);
  const c = await t.lead(m.program, 'user_88');
  const load = (name: string, values: Record<string, string> = {}) => fixture<Event>(name, { ...m.values, ...values });
  return { t, program: m.program, clickOf88: c.clickId, load, during: log.during };
}
type Merchant = Awaited<ReturnType<typeof merchant>>;

/** A checkout of its own payment: a new event id and transaction id. */
function checkout(event: Event, n: number, metadata: Record<string, string | undefined>): Event {
  const copy = structuredClone(event);
  copy.id = `evt_batch_${n}`;
  copy.data.object.payment_intent = `pi_batch_${n}`;
  Object.assign(copy.data.object.metadata, metadata);
  for (const [key, value] of Object.entries(metadata)) if (value === undefined) delete copy.data.object.metadata[key];
  return copy;
}

function delivery(t: TestApp, program: ProgramFixture, event: Event) {
  return applyDelivery(t.deps, {
    programId: program.id,
    eventId: event.id,
    type: event.type,
    planned: planEvent(parseEnvelope(event), program.id),
    payload: JSON.stringify(event),
    receivedAt: t.clock.now(),
  });
}

/** All submitted before the writer takes any, so they are one batch: the writer's statements show it. */
async function deliverTogether(m: Merchant, events: Event[], statements = ONE_BATCH): Promise<Applied[]> {
  const { value, statements: seen } = await m.during(() => Promise.all(events.map((event) => delivery(m.t, m.program, event))));
  expect(seen).toEqual(statements);
  return value;
}

function customerOfSale(t: TestApp, saleId: number | null): Promise<string | undefined> {
  return t.store
    .read((sql) => sql.one<{ customer_key: string }>('SELECT c.customer_key FROM sale_events s JOIN customers c ON c.id = s.customer_id WHERE s.id = $1', [saleId]))
    .then((row) => row?.customer_key);
}

const summary = ({ row, redelivery }: Applied) => [row.event_id, row.outcome, row.reason, row.sale_id, redelivery];

describe('one batch of webhook deliveries', () => {
  test('each delivery is attributed by its own first matching step of the attribution order', async () => {
    const m = await merchant();
    const { t, clickOf88, load } = m;
    const base = load('checkout-one-time');
    const events = [
      checkout(base, 1, {}), // click A → user_42
      load('checkout-email-fallback'), // e-mail → user_77
      checkout(base, 3, { partner_click_id: undefined, partner_customer_key: 'user_88' }), // key alone → user_88
      checkout(base, 4, { partner_click_id: clickOf88, partner_customer_key: 'user_42' }), // the click wins over the key → user_88
      checkout(base, 5, { partner_click_id: `${clickOf88.slice(0, -1)}x`, partner_customer_key: 'user_77' }), // a forged click falls through → user_77
      checkout(base, 6, { partner_click_id: undefined, partner_customer_key: 'nobody' }),
    ];
    const applied = await deliverTogether(m, events);
    expect(applied.map(summary)).toEqual([
      ['evt_batch_1', 'recorded', null, 1, false],
      [events[1].id, 'recorded', null, 2, false],
      ['evt_batch_3', 'recorded', null, 3, false],
      ['evt_batch_4', 'recorded', null, 4, false],
      ['evt_batch_5', 'recorded', null, 5, false],
      ['evt_batch_6', 'skipped', 'no_attribution', null, false],
    ]);
    const customers = await Promise.all([1, 2, 3, 4, 5].map((saleId) => customerOfSale(t, saleId)));
    expect(customers).toEqual(['user_42', 'user_77', 'user_88', 'user_88', 'user_77']);
    expect(await t.count('webhook_events')).toBe(6);
    expect(await t.count('commissions')).toBe(5);
    // Only the skipped event keeps its body (a later sale may attribute it); a recorded one's data is in its sale.
    const bodies = await t.store.read((sql) => sql.all<{ event_id: string; payload: string | null }>('SELECT event_id, payload FROM webhook_events WHERE payload IS NOT NULL'));
    expect(bodies).toEqual([{ event_id: 'evt_batch_6', payload: JSON.stringify(events[5]) }]);
  });

  test('events stored earlier and one sent twice, amid new ones: redeliveries answer the stored rows, nothing twice', async () => {
    const m = await merchant();
    const { t, load } = m;
    const base = load('checkout-one-time');
    const [stored, twice, fresh] = [checkout(base, 1, {}), checkout(base, 2, {}), checkout(base, 3, {})];
    const ignored = fixture<Event>('customer-created');
    expect((await deliverTogether(m, [stored, ignored])).map(summary)).toEqual([
      ['evt_batch_1', 'recorded', null, 1, false],
      [ignored.id, 'ignored', 'unhandled_event_type', null, false],
    ]);
    // The first run does not look stored events up: the ledger's key (the recorded event's sale) or
    // the event's key (the ignored one, which records nothing) fails its append, the batch is rolled
    // back and runs again with every lookup, committed once. (Ids the rolled-back run took are not reused.)
    const applied = await deliverTogether(m, [twice, stored, fresh, twice], ['BEGIN', ...ONE_BATCH]);
    const [second, third] = [applied[0].row.sale_id, applied[2].row.sale_id];
    expect(applied.map(summary)).toEqual([
      ['evt_batch_2', 'recorded', null, second, false],
      ['evt_batch_1', 'recorded', null, 1, true],
      ['evt_batch_3', 'recorded', null, third, false],
      ['evt_batch_2', 'recorded', null, second, true],
    ]);
    const [ignoredAgain, fourth] = await deliverTogether(m, [ignored, checkout(base, 4, {})], ['BEGIN', 'APPEND webhook_events', ...ONE_BATCH]);
    expect([summary(ignoredAgain), summary(fourth)]).toEqual([
      [ignored.id, 'ignored', 'unhandled_event_type', null, true],
      ['evt_batch_4', 'recorded', null, fourth.row.sale_id, false],
    ]);
    expect(new Set([1, second, third, fourth.row.sale_id]).size).toBe(4);
    expect(await t.count('webhook_events')).toBe(5);
    expect(await t.count('sale_events')).toBe(4);
    expect(await t.count('sale_transactions')).toBe(4);
    expect(await t.count('commissions')).toBe(4);
  });

  test('a redelivery of an unattributed event and its re-run in one batch: the re-run records the sale, the redelivery answers it', async () => {
    const m = await merchant();
    const { t, program, load } = m;
    t.clock.set('2026-04-28T12:05:00.000Z');
    const [renewal, start] = [load('invoice-renewal-no-metadata'), load('checkout-subscription')];
    expect((await deliverTogether(m, [renewal])).map(summary)).toEqual([[renewal.id, 'skipped', 'no_attribution', null, false]]);
    // The checkout commits; the re-run its request would start next meets a redelivery of the renewal.
    expect((await deliverTogether(m, [start])).map(summary)).toEqual([[start.id, 'recorded', null, 1, false]]);
    const planned = planEvent(parseEnvelope(renewal), program.id);
    const { value: [again, rerun], statements } = await m.during(() =>
      Promise.all([delivery(t, program, renewal), applyRerun(t.deps, { programId: program.id, eventId: renewal.id, planned })]),
    );
    // One transaction for both, and no new event row: the re-run updates the stored one.
    expect(statements).toEqual(['BEGIN', 'COMMIT']);
    expect(summary(rerun!)).toEqual([renewal.id, 'recorded', null, 2, false]);
    expect(summary(again)).toEqual([renewal.id, 'recorded', null, 2, true]);
    expect(await customerOfSale(t, 2)).toBe('user_42');
    expect(await t.count('sale_events')).toBe(2);
  });

  test("an event naming the Stripe customer an earlier event of the batch links is attributed after it, by the provider step", async () => {
    const m = await merchant();
    const { t, load } = m;
    const base = load('checkout-one-time');
    const linking = checkout(base, 1, {}); // click A → user_42, links cus_wave
    linking.data.object.customer = 'cus_wave';
    const following = checkout(base, 2, { partner_click_id: undefined, partner_customer_key: 'user_77' });
    following.data.object.customer = 'cus_wave';
    const applied = await deliverTogether(m, [linking, following]);
    expect(applied.map(summary)).toEqual([
      ['evt_batch_1', 'recorded', null, 1, false],
      ['evt_batch_2', 'recorded', null, 2, false],
    ]);
    // One at a time, the second would find cus_wave linked to user_42 before trying its customer key.
    expect(await customerOfSale(t, 1)).toBe('user_42');
    expect(await customerOfSale(t, 2)).toBe('user_42');
  });

  test('a renewal and the checkout that identifies its customer in one batch: the renewal is stored unattributed, then recorded by the checkout', async () => {
    const m = await merchant();
    const { t, program, load } = m;
    t.clock.set('2026-04-28T12:05:00.000Z');
    const [renewal, start] = [load('invoice-renewal-no-metadata'), load('checkout-subscription')];
    const applied = await deliverTogether(m, [renewal, start]);
    expect(applied.map(summary)).toEqual([
      [renewal.id, 'skipped', 'no_attribution', null, false],
      [start.id, 'recorded', null, 1, false],
    ]);
    // The checkout's transaction id (its invoice) is what a refund of its payment may name (docs/refunds-and-payouts.md#invoice_paymentpaid-and-refunds-that-wait).
    expect(applied[1].unlocks).toEqual({ subscriptionId: 'sub_1RpkSubQm2LdVhA8', providerCustomerId: 'cus_SZpk4x7Qm2LdVh', paymentRefs: ['in_1RpkFirstQm2LdVhB3'] });
    // What the checkout's request does after its COMMIT (receive.ts).
    await reattribute(t.deps, program.id, [applied[1].unlocks]);
    const events = await t.admin('GET', `/programs/${program.id}/webhook-events`);
    expect(events.find((e: { eventId: string }) => e.eventId === renewal.id)).toMatchObject({ outcome: 'recorded', reason: null, saleId: 2 });
    expect(await customerOfSale(t, 2)).toBe('user_42');
    expect(await t.count('sale_events')).toBe(2);
  });
});
