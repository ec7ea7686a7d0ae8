import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, test } from 'vitest';
import { MAX_JSON_BYTES, PROVIDERS } from '../../src/api/index.js';
import { WEBHOOK_BODY_LIMIT } from '../../src/http/routes/webhooks.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { fixture, sendWebhook, type SendOptions } from '../helpers/stripe.js';
import { counts, delta, expectErrorEnvelope, type Counts } from './support.js';

/**
 * Bad input (fault suite): 1,000 generated bodies per tracking route, fixed seed. Every
 * answer is below 500 and in the documented envelope, and nothing is stored unless it was 2xx.
 */
const RUNS = 1000;
const SEED = 20260301;
const DAY = 86_400_000;

/** Removed from generated records: the field is absent. */
const ABSENT = Symbol('absent');
type Maybe<T> = T | typeof ABSENT;

/** bigint stands for a JSON number literal of any size, e.g. beyond 2^53. */
function toJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `__big${v}__` : v)) ?? 'null';
  return text.replace(/"__big(-?\d+)__"/g, '$1');
}

function present<T extends Record<string, Maybe<unknown>>>(record: T): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== ABSENT));
}

const LONE_SURROGATES = ['\ud800', '\udbff', '\udc00', '\udfff'];

/** Whether a parsed value holds a string or key that is not valid Unicode (checked here independently of the service). */
function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return !value.isWellFormed();
  if (typeof value !== 'object' || value === null) return false;
  return Object.entries(value).some(([key, item]) => !key.isWellFormed() || hasLoneSurrogate(item));
}

/**
 * One time in four, a lone surrogate put into one of the value's strings or keys, at any depth and
 * position: every string field of every route gets its share over a run.
 */
function withLoneSurrogate<T>(values: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.tuple(values, fc.nat(), fc.nat(), fc.constantFrom(...LONE_SURROGATES), fc.nat(3)).map(([value, which, at, unit, chance]) => {
    if (chance !== 0 || typeof value !== 'object' || value === null) return value;
    const copy = structuredClone(value) as Record<string, unknown>;
    // Every place a string can sit: a value of a string, or a key, in objects and arrays at any depth.
    const slots: Array<{ owner: Record<string, unknown>; key: string; kind: 'value' | 'key' }> = [];
    const visit = (owner: Record<string, unknown>, depth: number) => {
      if (depth > 20) return;
      for (const [key, item] of Object.entries(owner)) {
        if (!Array.isArray(owner)) slots.push({ owner, key, kind: 'key' });
        if (typeof item === 'string') slots.push({ owner, key, kind: 'value' });
        else if (typeof item === 'object' && item !== null) visit(item as Record<string, unknown>, depth + 1);
      }
    };
    visit(copy, 0);
    if (slots.length === 0) return value;
    const { owner, key, kind } = slots[which % slots.length];
    const inject = (text: string) => text.slice(0, at % (text.length + 1)) + unit + text.slice(at % (text.length + 1));
    if (kind === 'value') owner[key] = inject(owner[key] as string);
    else {
      owner[inject(key)] = owner[key];
      delete owner[key];
    }
    return copy as T;
  });
}

const hugeStrings = ['x'.repeat(256), 'é'.repeat(300), '𝄞'.repeat(130), 'a'.repeat(3000), 'z'.repeat(20_000)];
const oddStrings = [
  '', ' ', '\u0000', '\u202e', '\ufffe', 'null', 'true', '4999', '4999.5', '1e3', '-1', 'USD', 'usd', 'EUR', 'xyz', 'NaN', 'Infinity',
  '2026-03-01T12:00:00Z', '2026-13-45T99:00:00Z', 'not-a-date', '<script>alert(1)</script>', "'; DROP TABLE sale_events; --",
  '__proto__', 'constructor', 'ck_1_AAAAAAAAAAAAAAAAAAAAAA', 'ck_999999999999999_AAAAAAAAAAAAAAAAAAAAAA',
];
const weirdString = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(...oddStrings),
  fc.constantFrom(...hugeStrings),
);
const weirdNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, -1, 1, 0.5, 4999.5, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 2, 1e21, 1e308, -1e308, Number.MIN_VALUE),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }),
  fc.bigInt({ min: 2n ** 53n - 2n, max: 2n ** 53n + 2n }),
);
/** Nested arrays and objects, shallow or up to 1,500 levels deep (deeper: see the dedicated test). */
const nested = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fc.anything({ maxDepth: 3, withNullPrototype: true, withObjectString: true }),
  fc.tuple(fc.integer({ min: 20, max: 1500 }), fc.boolean()).map(([depth, objects]) =>
    JSON.parse(objects ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + ']'.repeat(depth)),
  ),
);
const junk = fc.oneof(weirdString, weirdNumber, fc.boolean(), fc.constant(null), nested, fc.array(weirdString, { maxLength: 3 }));

/** Present and valid most of the time, sometimes junk, sometimes absent. */
const core = <T>(valid: fc.Arbitrary<T>): fc.Arbitrary<Maybe<unknown>> =>
  fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: junk, weight: 1 }, { arbitrary: fc.constant(ABSENT), weight: 1 });
/** Absent most of the time, sometimes valid, rarely junk. */
const optional = <T>(valid: fc.Arbitrary<T>): fc.Arbitrary<Maybe<unknown>> =>
  fc.oneof({ arbitrary: fc.constant(ABSENT), weight: 20 }, { arbitrary: valid, weight: 6 }, { arbitrary: junk, weight: 1 });

/** A whole body: mostly an object built from fields, else any JSON value, or text that is not JSON. */
function body(fields: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: withLoneSurrogate(fields).map(toJson), weight: 17 },
    { arbitrary: junk.map(toJson), weight: 2 },
    { arbitrary: fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('', '{', '{"a":1,}', '[1,2', 'undefined', "{'a':1}", '{"a":1}{"b":2}')), weight: 1 },
  );
}

type Merchant = Awaited<ReturnType<typeof merchant>>;

/**
 * A program with a customer (cust_1) inside the attribution window, one (cust_old) outside it, and
 * a second program with a customer and click of its own (cross-program attribution must fail).
 */
async function merchant() {
  const t = await buildTestApp();
  const program = await t.program();
  const other = await t.program();
  const old = await t.lead(program, 'cust_old');
  const foreign = await t.lead(other, 'cust_other');
  t.clock.advanceDays(95);
  const current = await t.lead(program, 'cust_1', { email: 'buyer@example.com' });
  return { t, program, other, clickIds: [current.clickId, old.clickId, foreign.clickId] };
}

/** Which key a tracking call sends: mostly the live key, sometimes test, missing or unknown. */
function authArb(m: Merchant): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { arbitrary: fc.constant(m.program.apiKey), weight: 14 },
    { arbitrary: fc.constant(m.program.testApiKey), weight: 3 },
    { arbitrary: fc.constant(m.other.apiKey), weight: 1 },
    { arbitrary: fc.constantFrom(undefined, 'pk_live_unknown', 'Bearer', '\u00e9'), weight: 1 },
  );
}

/** The click endpoint: mostly a browser (no key), sometimes the merchant's backend or a bad key. */
function clickAuthArb(m: Merchant): fc.Arbitrary<string | undefined> {
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: 12 }, { arbitrary: authArb(m), weight: 7 });
}

function saleBody(m: Merchant): fc.Arbitrary<string> {
  const now = m.t.clock.now().getTime();
  const occurredAt = fc
    .tuple(fc.integer({ min: -31 * DAY, max: 10 * 60_000 }), fc.constantFrom('Z', '+02:00', '-05:30', '+00:00'))
    .map(([offset, zone]) => {
      const iso = new Date(now + offset).toISOString();
      if (zone === 'Z') return iso;
      const minutes = (zone[0] === '-' ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4)));
      return new Date(now + offset + minutes * 60_000).toISOString().replace('Z', zone);
    });
  const fields = fc.record({
    transaction_id: core(fc.oneof({ arbitrary: fc.uuid(), weight: 9 }, { arbitrary: fc.constantFrom('in_dup', 'in_dup_2'), weight: 1 })),
    amount_cents: core(fc.oneof(fc.integer({ min: 1, max: 100_000 }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }))),
    customer_key: core(fc.constantFrom('cust_1', 'cust_1', 'cust_1', 'cust_old', 'cust_other', 'nobody')),
    click_id: optional(fc.constantFrom(...m.clickIds, 'ck_1_AAAAAAAAAAAAAAAAAAAAAA')),
    tax_cents: optional(fc.nat()),
    currency: optional(fc.constantFrom('USD', 'usd', 'EUR', 'eur', 'VnD', 'GBP', 'US', '')),
    sale_type: optional(fc.constantFrom('payment', 'subscription', 'Payment')),
    is_recurring: optional(fc.boolean()),
    subscription_id: optional(fc.constantFrom('sub_1', 'sub_2')),
    subscription_interval: optional(fc.constantFrom('monthly', 'quarterly', 'annual', 'weekly')),
    product_id: optional(fc.string({ minLength: 1, maxLength: 20 })),
    line_items: optional(fc.jsonValue({ maxDepth: 3 })),
    occurred_at: optional(occurredAt),
    provider: optional(fc.constantFrom(...PROVIDERS, 'Stripe')),
    provider_payment_id: optional(fc.string({ minLength: 1, maxLength: 30 })),
    livemode: optional(fc.constantFrom(true, true, false)),
    additional_data: optional(fc.record({ test_mode: fc.constantFrom(true, false, false), note: fc.string() }, { requiredKeys: [] })),
    surprise_field: optional(junk),
  });
  return body(fields.map(present));
}

function leadBody(m: Merchant): fc.Arbitrary<string> {
  const fields = fc.record({
    customer_key: core(fc.oneof({ arbitrary: fc.uuid(), weight: 8 }, { arbitrary: fc.constantFrom('cust_1', 'cust_old'), weight: 2 })),
    click_id: core(fc.constantFrom(...m.clickIds, 'ck_1_AAAAAAAAAAAAAAAAAAAAAA', 'ck_x')),
    email: optional(fc.oneof(fc.emailAddress(), fc.constantFrom('not-an-email', 'a@b', 'ÄÖ@example.com'))),
    name: optional(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 })),
    surprise_field: optional(junk),
  });
  return body(fields.map(present));
}

function clickBody(m: Merchant): fc.Arbitrary<string> {
  const fields = fc.record({
    ref: core(fc.constantFrom(m.program.refCode, m.program.refCode, m.other.refCode, 'nope')),
    landing_url: optional(fc.oneof(fc.webUrl(), fc.constant('https://shop.example/' + 'p'.repeat(2100)))),
    referrer: optional(fc.webUrl()),
    test: optional(fc.boolean()),
    ip: optional(fc.oneof(fc.ipV4(), fc.ipV6(), fc.constantFrom('203.0.113.7', '::ffff:203.0.113.7', '203.0.113.7:80', 'localhost'))),
    user_agent: optional(fc.oneof(fc.string({ maxLength: 60 }), fc.constant('u'.repeat(1025)))),
    surprise_field: optional(junk),
  });
  return body(fields.map(present));
}

const REFUNDABLE = Array.from({ length: 30 }, (_, i) => `in_r${i + 1}`);

/** Sales to refund: thirty live ones of 10,000.00 (the second's commission already paid), two test ones, one past its window. */
async function refundableSales(m: Merchant): Promise<void> {
  for (const transactionId of REFUNDABLE) await m.t.sale(m.program, { transaction_id: transactionId, amount_cents: 1_000_000 });
  await m.t.store.transaction((sql) => sql.write({ table: 'commissions', set: "status = 'paid'", where: 'sale_id = 2' }));
  for (let i = 1; i <= 2; i++) await m.t.sale(m.program, { transaction_id: `in_t${i}`, amount_cents: 500_000 }, m.program.testApiKey);
  expect((await m.t.sale(m.program, { transaction_id: 'in_expired', customer_key: 'cust_old' })).sale_id).toBeNull();
}

function refundBody(): fc.Arbitrary<string> {
  const amount = fc.oneof(
    { arbitrary: fc.integer({ min: 1, max: 20_000 }), weight: 30 },
    { arbitrary: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), weight: 2 },
    { arbitrary: fc.constant(ABSENT), weight: 1 },
    { arbitrary: junk, weight: 1 },
  );
  const fields = fc.record({
    transaction_id: core(fc.oneof(
      { arbitrary: fc.constantFrom(...REFUNDABLE), weight: 8 },
      { arbitrary: fc.constantFrom('in_t1', 'in_t2', 'in_expired', 'in_nope'), weight: 2 },
    )),
    refund_id: core(fc.oneof({ arbitrary: fc.uuid(), weight: 9 }, { arbitrary: fc.constantFrom('re_dup', 're_dup_2'), weight: 1 })),
    amount_cents: amount,
    reason: optional(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 })),
    surprise_field: optional(junk),
  });
  return body(fields.map(present));
}

function send(t: TestApp, url: string, payload: string, apiKey?: string): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST', url, payload, headers: { 'content-type': 'application/json', ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }) },
  });
}

/** Click ids answered so far: the same visitor on the same link again gets its first click id and stores nothing. */
const answeredClicks = new Set<string>();

/** What a 2xx may have stored, from its answer; anything else must store nothing. */
function allowedChanges(url: string, payload: string, response: LightMyRequestResponse): Record<string, number> {
  const answer = response.json();
  if (url.endsWith('/click')) {
    expect(answer).toEqual({ click_id: expect.stringMatching(/^ck_\d+_[A-Za-z0-9_-]{16,64}$/) });
    if (answeredClicks.has(answer.click_id)) return {};
    answeredClicks.add(answer.click_id);
    return { clicks: 1 };
  }
  if (url.endsWith('/lead')) {
    expect(answer).toEqual({ success: true, customer_id: expect.toBeOneOf([null, expect.any(Number)]), message: expect.any(String) });
    return answer.message === 'Lead tracked' ? { customers: 1 } : {};
  }
  if (url.endsWith('/refund')) {
    expect(answer).toEqual({
      success: true, refund_id: expect.any(Number), sale_id: expect.any(Number), refunded_cents: expect.any(Number), remaining_cents: expect.any(Number),
      commission_id: expect.toBeOneOf([null, expect.any(Number)]), commission_status: expect.toBeOneOf([null, expect.any(String)]),
      clawback_commission_id: expect.toBeOneOf([null, expect.any(Number)]),
    });
    return { refunds: 1, ...(answer.clawback_commission_id === null ? {} : { commissions: 1 }) };
  }
  const sent = JSON.parse(payload) as { transaction_id?: unknown };
  if ('data' in answer) {
    expect(answer).toEqual({ success: true, message: expect.any(String), data: { eventId: expect.any(Number), programId: expect.any(Number), test_mode: true } });
    return typeof sent.transaction_id === 'string' ? { test_sale_events: 1, sale_transactions: 1 } : { test_sale_events: 1 };
  }
  expect(answer).toEqual({ success: true, sale_id: expect.toBeOneOf([null, expect.any(Number)]), commission_id: expect.toBeOneOf([null, expect.any(Number)]), message: expect.any(String) });
  if (answer.sale_id === null) return { sale_transactions: 1 };
  return { sale_events: 1, sale_transactions: 1, ...(answer.commission_id === null ? {} : { commissions: 1 }) };
}

/** A 2xx stored exactly what its answer says (a live sale may convert its customer); any other answer is the envelope and stored nothing. */
function expectStoredAsAnswered(url: string, payload: string, response: LightMyRequestResponse, changes: Partial<Counts>): void {
  if (response.statusCode >= 200 && response.statusCode < 300) {
    const allowed = allowedChanges(url, payload, response);
    const { conversions, ...rows } = changes;
    expect(rows).toEqual(allowed);
    if (conversions !== undefined) expect(conversions === 1 && allowed.sale_events === 1).toBe(true);
  } else {
    expectErrorEnvelope(response.statusCode, response.body);
    expect(changes, `stored on ${response.statusCode}`).toEqual({});
  }
}

/** The parsed body, or undefined when it is not JSON. */
function parsed(payload: string): unknown {
  try {
    return JSON.parse(payload);
  } catch {
    return undefined;
  }
}

async function fuzz(
  url: string,
  bodies: (m: Merchant) => fc.Arbitrary<string>,
  auth: (m: Merchant) => fc.Arbitrary<string | undefined>,
  prepare: (m: Merchant) => Promise<void> = async () => {},
) {
  const m = await merchant();
  await prepare(m);
  const statuses = new Map<number, number>();
  const keys = [m.program.apiKey, m.program.testApiKey, m.other.apiKey];
  let refusedSurrogates = 0;
  // Only the requests change the store, so the counts after one request are the counts before the next.
  let before = await counts(m.t.store);
  await fc.assert(
    fc.asyncProperty(bodies(m), auth(m), async (payload, apiKey) => {
      const response = await send(m.t, url, payload, apiKey);
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      expect(response.statusCode, response.body).toBeLessThan(500);
      const after = await counts(m.t.store);
      expectStoredAsAnswered(url, payload, response, delta(before, after));
      before = after;
      // A lone surrogate anywhere in a body past authentication (the click needs none): 400 invalid_request, whatever else is wrong.
      const authenticated = apiKey === undefined ? url.endsWith('/click') : keys.includes(apiKey);
      if (hasLoneSurrogate(parsed(payload)) && authenticated && Buffer.byteLength(payload) <= MAX_JSON_BYTES) {
        expect(response.statusCode, response.body).toBe(400);
        expect(response.json().error).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('not valid Unicode') });
        refusedSurrogates++;
      }
    }),
    { numRuns: RUNS, seed: SEED, interruptAfterTimeLimit: 60_000, markInterruptAsFailure: true },
  );
  // The generator put lone surrogates into a fair share of the bodies.
  expect(refusedSurrogates).toBeGreaterThan(RUNS / 10);
  return { statuses, m };
}

/** The 2xx paths and several error paths must each have been exercised, not only 400. */
function expectVariety(statuses: Map<number, number>, expected: number[]) {
  const total = [...statuses.values()].reduce((a, b) => a + b, 0);
  expect(total).toBe(RUNS);
  for (const status of expected) expect(statuses.get(status) ?? 0, `answers ${status} in ${JSON.stringify([...statuses])}`).toBeGreaterThan(0);
  expect(statuses.get(200)! / RUNS).toBeGreaterThan(0.1);
}

describe('bad input: property-based fuzz of the tracking API (fast-check, fixed seed)', () => {
  test(`POST /api/v1/track/sale: ${RUNS} bodies, never a 5xx, always the envelope, nothing stored unless 2xx`, { timeout: 120_000 }, async () => {
    const { statuses } = await fuzz('/api/v1/track/sale', saleBody, authArb);
    expectVariety(statuses, [200, 400, 401, 409, 422]);
  });

  test(`POST /api/v1/track/lead: ${RUNS} bodies`, { timeout: 120_000 }, async () => {
    const { statuses } = await fuzz('/api/v1/track/lead', leadBody, authArb);
    expectVariety(statuses, [200, 400, 401]);
  });

  test(`POST /api/v1/track/click: ${RUNS} bodies`, { timeout: 120_000 }, async () => {
    const { statuses } = await fuzz('/api/v1/track/click', clickBody, clickAuthArb);
    expectVariety(statuses, [200, 400, 401, 404]);
  });

  test(`POST /api/v1/track/refund: ${RUNS} bodies; no sale is ever refunded beyond its amount`, { timeout: 120_000 }, async () => {
    const { statuses, m } = await fuzz('/api/v1/track/refund', refundBody, authArb, refundableSales);
    expectVariety(statuses, [200, 400, 401, 404, 409, 422]);
    const overRefunded = await m.t.store.read((sql) =>
      sql.all(
        `SELECT r.mode, r.sale_id, sum(r.amount_cents) AS refunded, max(coalesce(s.amount_cents, t.amount_cents)) AS amount FROM refunds r
         LEFT JOIN sale_events s ON r.mode = 'live' AND s.id = r.sale_id LEFT JOIN test_sale_events t ON r.mode = 'test' AND t.id = r.sale_id
         GROUP BY 1, 2 HAVING sum(r.amount_cents) > max(coalesce(s.amount_cents, t.amount_cents))`,
      ),
    );
    expect(overRefunded).toEqual([]);
  });
});

describe('bad input: extremes the generators only sample', () => {
  const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  const deepObject = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
  // The deepest nesting a 64 KiB body can carry: every field that takes any JSON value gets it.
  const DEPTH = 30_000;

  test.each([
    ['sale line_items', '/api/v1/track/sale', 'live', `{"transaction_id":"in_deep_1","amount_cents":100,"customer_key":"cust_1","line_items":${deep(DEPTH)}}`],
    ['test sale line_items', '/api/v1/track/sale', 'test', `{"transaction_id":"in_deep_2","amount_cents":100,"customer_key":"cust_1","line_items":${deep(DEPTH)}}`],
    ['test sale additional_data', '/api/v1/track/sale', 'test', `{"transaction_id":"in_deep_3","amount_cents":100,"additional_data":{"a":${deep(DEPTH)}}}`],
    ['live sale additional_data', '/api/v1/track/sale', 'live', `{"transaction_id":"in_deep_4","amount_cents":100,"customer_key":"cust_1","additional_data":{"a":${deepObject(10_000)}}}`],
    ['sale unknown field', '/api/v1/track/sale', 'live', `{"transaction_id":"in_deep_5","amount_cents":100,"customer_key":"cust_1","x":${deep(DEPTH)}}`],
    ['sale body itself', '/api/v1/track/sale', 'live', deep(DEPTH)],
    ['lead unknown field', '/api/v1/track/lead', 'live', `{"customer_key":"deep","click_id":"ck_x","x":${deep(DEPTH)}}`],
    ['click unknown field', '/api/v1/track/click', 'none', `{"ref":"nope","x":${deepObject(10_000)}}`],
  ])('%s nested thousands of levels deep (%s): not a 5xx, the envelope, nothing stored unless 2xx', async (_name, url, key, payload) => {
    expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(MAX_JSON_BYTES);
    const m = await merchant();
    const before = await counts(m.t.store);
    const response = await send(m.t, url, payload, key === 'live' ? m.program.apiKey : key === 'test' ? m.program.testApiKey : undefined);
    expect(response.statusCode, response.body).toBeLessThan(500);
    expectStoredAsAnswered(url, payload, response, delta(before, await counts(m.t.store)));
  });

  // A lone UTF-16 surrogate is legal JSON text ("\ud800") and a legal JS string; the generators leave it to these cases.
  test.each([
    ['test sale product_id', 'test', { transaction_id: 'in_s1', amount_cents: 100, product_id: '\ud800' }],
    ['live sale line_items', 'live', { transaction_id: 'in_s2', amount_cents: 100, customer_key: 'cust_1', line_items: [{ sku: '\udc00' }] }],
    ['live sale product_id', 'live', { transaction_id: 'in_s3', amount_cents: 100, customer_key: 'cust_1', product_id: 'a\ud800b' }],
  ])('a lone surrogate in the %s: not a 5xx, the envelope, nothing stored unless 2xx', async (_name, key, fields) => {
    const m = await merchant();
    const before = await counts(m.t.store);
    const payload = JSON.stringify(fields);
    const response = await send(m.t, '/api/v1/track/sale', payload, key === 'live' ? m.program.apiKey : m.program.testApiKey);
    expect(response.statusCode, response.body).toBeLessThan(500);
    expectStoredAsAnswered('/api/v1/track/sale', payload, response, delta(before, await counts(m.t.store)));
  });

  test.each([
    ['/api/v1/track/click', (m: Merchant) => ({ ref: m.program.refCode }), undefined],
    ['/api/v1/track/lead', () => ({ customer_key: 'big', click_id: 'ck_x' }), 'live'],
    ['/api/v1/track/sale', () => ({ transaction_id: 'in_big', amount_cents: 100, customer_key: 'cust_1' }), 'live'],
    ['/api/v1/track/refund', () => ({ transaction_id: 'in_big', refund_id: 're_big' }), 'live'],
  ])('%s: a body over 64 KiB is 413 payload_too_large in the platform envelope; at the limit it is read', async (url, fields, key) => {
    const m = await merchant();
    const apiKey = key ? m.program.apiKey : undefined;
    const padded = (size: number) => {
      const base = toJson({ ...fields(m), padding: '' });
      return base.replace('"padding":""', `"padding":"${'p'.repeat(size - Buffer.byteLength(base))}"`);
    };
    const before = await counts(m.t.store);
    const over = await send(m.t, url, padded(MAX_JSON_BYTES + 1), apiKey);
    expect(over.statusCode).toBe(413);
    expect(expectErrorEnvelope(413, over.body).code).toBe('payload_too_large');
    expect(delta(before, await counts(m.t.store))).toEqual({});

    const atLimit = padded(MAX_JSON_BYTES);
    expect(Buffer.byteLength(atLimit)).toBe(MAX_JSON_BYTES);
    const read = await send(m.t, url, atLimit, apiKey);
    expect(read.statusCode, read.body).not.toBe(413);
    expect(read.statusCode).toBeLessThan(500);
  });
});

/** Stripe events with fields replaced by generated values, or any JSON, or text. */
function webhookBody(m: Merchant): fc.Arbitrary<string> {
  const values = { CLICK_ID: m.clickIds[0], CUSTOMER_KEY: 'cust_1', PROGRAM_ID: String(m.program.id) };
  const bases = [
    'checkout-one-time', 'checkout-subscription', 'invoice-renewal', 'invoice-renewal-no-metadata', 'customer-created', 'refund-full', 'refund-invoice-basil',
    'invoice-payment-paid',
  ].map((name) => fixture(name, values));
  const overrides = fc.record({
    id: core(fc.uuid().map((u) => `evt_${u}`)),
    type: optional(fc.constantFrom('checkout.session.completed', 'invoice.paid', 'invoice.payment_succeeded', 'checkout.session.async_payment_succeeded', 'charge.refunded', '')),
    livemode: optional(fc.boolean()),
    created: optional(fc.integer({ min: 1_700_000_000, max: 1_800_000_000 })),
    amount: optional(fc.integer({ min: -100, max: 10_000_000 })),
    currency: optional(fc.constantFrom('usd', 'eur', 'vnd', 'gbp', '')),
    payment_status: optional(fc.constantFrom('paid', 'unpaid', 'no_payment_required')),
    billing_reason: optional(fc.constantFrom('subscription_cycle', 'subscription_create', 'manual')),
    metadata: optional(fc.dictionary(fc.constantFrom('partner_click_id', 'partner_customer_key', 'program_id', 'x'), fc.oneof(fc.string(), fc.constantFrom('cust_1', '1', '2', m.clickIds[0])))),
  });
  const event = fc.tuple(fc.constantFrom(...bases), overrides.map(present)).map(([base, o]) => {
    const e = structuredClone(base) as any;
    const object = e.data.object;
    for (const [field, value] of Object.entries(o)) {
      if (field === 'id' || field === 'type' || field === 'livemode' || field === 'created') e[field] = value;
      else if (field === 'amount') object[{ invoice: 'amount_paid', charge: 'amount_refunded' }[object.object as string] ?? 'amount_total'] = value;
      else if (field === 'metadata') (object.parent?.subscription_details ?? object).metadata = value;
      else object[field] = value;
    }
    return e;
  });
  return fc.oneof({ arbitrary: withLoneSurrogate(event).map(toJson), weight: 3 }, { arbitrary: body(fc.constant({})), weight: 1 });
}

describe('bad input: property-based fuzz of the Stripe webhook (fast-check, fixed seed)', () => {
  test(`POST /api/v1/webhooks/stripe/:programId: ${RUNS} bodies, signed and not: never a 5xx; unsigned is 400 invalid_signature; nothing stored unless 2xx`, { timeout: 120_000 }, async () => {
    const m = await merchant();
    const statuses = new Map<string, number>();
    let before = await counts(m.t.store);
    const now = Math.floor(m.t.clock.now().getTime() / 1000);
    const signings: Record<string, SendOptions> = {
      signed: {}, none: { header: null }, 'wrong secret': { secret: m.other.webhookSecret }, stale: { timestamp: now - 301 }, garbage: { header: 't=abc,v1=zz' },
    };
    const signing = fc.constantFrom('signed', 'signed', 'signed', 'none', 'wrong secret', 'stale', 'garbage');
    let recorded = 0;
    let malformed = 0;
    await fc.assert(
      fc.asyncProperty(webhookBody(m), signing, async (payload, how) => {
        const delivery = await sendWebhook(m.t, m.program, payload, signings[how]);
        const response = { statusCode: delivery.status, body: JSON.stringify(delivery.body) };
        statuses.set(`${how} ${response.statusCode}`, (statuses.get(`${how} ${response.statusCode}`) ?? 0) + 1);
        expect(response.statusCode, response.body).toBeLessThan(500);
        const after = await counts(m.t.store);
        const changes = delta(before, after);
        before = after;
        const recordedBefore = recorded;
        recorded = await m.t.count('webhook_events', "outcome = 'recorded' AND reason IS NULL");
        if (how !== 'signed') {
          expect(response.statusCode).toBe(400);
          expect(expectErrorEnvelope(400, response.body).code).toBe('invalid_signature');
        }
        if (response.statusCode !== 200) {
          expectErrorEnvelope(response.statusCode, response.body);
          expect(changes, `stored on ${response.statusCode}`).toEqual({});
          return;
        }
        const answer = delivery.body;
        if (hasLoneSurrogate(parsed(payload)) && !answer.redelivery) {
          expect(answer).toMatchObject({ outcome: 'skipped', reason: 'malformed_event', sale_id: null });
          malformed++;
        }
        expect(answer).toEqual({
          received: true, event_id: expect.any(String), type: expect.any(String), outcome: expect.toBeOneOf(['recorded', 'skipped', 'ignored']),
          reason: expect.toBeOneOf([null, expect.any(String)]), sale_id: expect.toBeOneOf([null, expect.any(Number)]), redelivery: expect.any(Boolean),
        });
        // A sale or an invoice payment also records the refunds that waited for it (sale_not_found), each with its event.
        const { conversions, refunds: released = 0, ...rows } = changes;
        const refundEvents = await m.t.count('webhook_events', "reason = 'refund_recorded' OR (type = 'charge.refunded' AND reason = 'test_mode')");
        expect(await m.t.count('refunds')).toBeLessThanOrEqual(refundEvents);
        if (answer.redelivery) {
          expect(changes).toEqual({});
        } else if (answer.outcome === 'recorded' && answer.reason === null) {
          // Deferred attribution (docs/webhooks.md): the sale also records the earlier no_attribution events it made attributable.
          const deferred = recorded - recordedBefore - 1;
          expect(rows).toEqual({ webhook_events: 1, sale_events: 1 + deferred, commissions: 1 + deferred, sale_transactions: 1 + deferred });
          expect(await m.t.count('sale_events', `id = ${answer.sale_id}`)).toBe(1);
        } else if (answer.reason === 'payment_linked') {
          expect(rows).toEqual({ webhook_events: 1, invoice_payments: 1 });
        } else if (answer.type === 'charge.refunded' && answer.outcome === 'recorded') {
          expect(rows).toEqual({ webhook_events: 1 });
          // A test-mode refund is recorded, or its charge's total was already.
          const possible: Record<string, number[]> = { refund_recorded: [1], already_refunded: [0], test_mode: [0, 1] };
          expect(possible[answer.reason]).toContain(released);
        } else {
          // Skipped, ignored, a test-mode sale or a sale recorded by an earlier event of the same payment.
          const { webhook_events, test_sale_events = 0, sale_transactions = 0, ...others } = rows;
          expect({ webhook_events, others, released }).toEqual({ webhook_events: 1, others: {}, released: answer.reason === 'test_mode' ? released : 0 });
          expect(test_sale_events).toBe(answer.reason === 'test_mode' ? sale_transactions : 0);
          expect(conversions).toBeUndefined();
        }
      }),
      { numRuns: RUNS, seed: SEED, interruptAfterTimeLimit: 60_000, markInterruptAsFailure: true },
    );
    const total = (prefix: string) => [...statuses].filter(([k]) => k.startsWith(prefix)).reduce((a, [, n]) => a + n, 0);
    expect(total('signed 200'), JSON.stringify([...statuses])).toBeGreaterThan(RUNS / 5);
    expect(total('signed 400'), JSON.stringify([...statuses])).toBeGreaterThan(0);
    expect(malformed).toBeGreaterThan(RUNS / 20);
    expect(await m.t.count('refunds')).toBeGreaterThan(0);
  });

  test('a signed event with a lone surrogate in any string is 200 skipped / malformed_event, whatever its type (Stripe would retry a 5xx for days)', async () => {
    const m = await merchant();
    const unhandled = { ...fixture('customer-created', {}), id: 'evt_surrogate_1' } as any;
    unhandled.data.object.description = 'Jos\ud800';
    const checkout = fixture('checkout-one-time', { CLICK_ID: m.clickIds[0], CUSTOMER_KEY: 'cust_1', PROGRAM_ID: String(m.program.id) }) as any;
    checkout.id = 'evt_surrogate_2';
    checkout.data.object.metadata.partner_customer_key = 'cust_1\udc00';
    const before = await counts(m.t.store);
    for (const event of [unhandled, checkout]) {
      const response = await sendWebhook(m.t, m.program, JSON.stringify(event));
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(response.body).toEqual({
        received: true, event_id: event.id, type: event.type, outcome: 'skipped', reason: 'malformed_event', sale_id: null, redelivery: false,
      });
    }
    expect(delta(before, await counts(m.t.store))).toEqual({ webhook_events: 2 });
  });

  test('an event id with a lone surrogate is stored as well-formed text (the surrogate as its \\u escape); redeliveries find it; ids differing only in their surrogate stay two events', async () => {
    const m = await merchant();
    const event = (id: string) => ({ ...fixture('customer-created', {}), id });
    const before = await counts(m.t.store);
    const answers = [];
    for (const id of ['evt_\ud800', 'evt_\ud800', 'evt_\udbff', 'evt_\ud800']) {
      const response = await sendWebhook(m.t, m.program, JSON.stringify(event(id)));
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      answers.push(response.body);
    }
    expect(answers.map((a) => [a.event_id, a.outcome, a.reason, a.redelivery])).toEqual([
      ['evt_\\ud800', 'skipped', 'malformed_event', false],
      ['evt_\\ud800', 'skipped', 'malformed_event', true],
      ['evt_\\udbff', 'skipped', 'malformed_event', false],
      ['evt_\\ud800', 'skipped', 'malformed_event', true],
    ]);
    expect(delta(before, await counts(m.t.store))).toEqual({ webhook_events: 2 });
    const stored = await m.t.store.read((sql) => sql.all<{ event_id: string }>('SELECT event_id FROM webhook_events ORDER BY event_id'));
    expect(stored.map((row) => row.event_id)).toEqual(['evt_\\ud800', 'evt_\\udbff']);
  });

  test('a body over 1 MiB is 413 payload_too_large in the platform envelope; the webhook reads bodies past the tracking API 64 KiB', async () => {
    const m = await merchant();
    const event = fixture('checkout-one-time', { CLICK_ID: m.clickIds[0], CUSTOMER_KEY: 'cust_1', PROGRAM_ID: String(m.program.id) });
    const padded = (size: number) => {
      const base = toJson({ ...event, padding: '' });
      return base.replace('"padding":""', `"padding":"${'p'.repeat(size - Buffer.byteLength(base))}"`);
    };
    const before = await counts(m.t.store);
    const over = await sendWebhook(m.t, m.program, padded(WEBHOOK_BODY_LIMIT + 1));
    expect(over.status).toBe(413);
    expect(expectErrorEnvelope(413, JSON.stringify(over.body)).code).toBe('payload_too_large');
    const unsigned = await sendWebhook(m.t, m.program, padded(MAX_JSON_BYTES * 2), { header: null });
    expect(unsigned.status).toBe(400);
    expect(expectErrorEnvelope(400, JSON.stringify(unsigned.body)).code).toBe('invalid_signature');
    expect(delta(before, await counts(m.t.store))).toEqual({});

    const atLimit = padded(WEBHOOK_BODY_LIMIT);
    expect(Buffer.byteLength(atLimit)).toBe(WEBHOOK_BODY_LIMIT);
    const read = await sendWebhook(m.t, m.program, atLimit);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body).toMatchObject({ outcome: 'recorded', sale_id: expect.any(Number) });
  });
});
