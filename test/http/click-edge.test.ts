import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test, vi } from 'vitest';
import { trackClick } from '../../src/domain/tracking.js';
import { visitorHash } from '../../src/domain/unique-clicks.js';
import { ADMIN_TOKEN, buildTestApp, freezeDate, rateLimitedBody, T0, type ProgramFixture, type TestApp, type TestAppOptions } from '../helpers/app.js';
import { API_KEY_MESSAGES, unauthorized } from '../helpers/route-auth.js';

/**
 * The public edge of the click endpoint (docs/tracking.md#post-apiv1trackclick, docs/tracking.md#unique-clicks, docs/api.md#rate-limits): unique clicks, the
 * per-address limit, X-Forwarded-For behind a proxy, server-side clicks with the program's key.
 */
const CLICK = '/api/v1/track/click';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0';
const MINUTE = 60_000;

type From = { ip?: string; ua?: string; key?: string; forwardedFor?: string };

/** A click as a browser at `ip` (a socket address) with `ua` sends it, or with an API key. */
function click(t: TestApp, body: Record<string, unknown>, from: From = {}) {
  return t.app.inject({
    method: 'POST',
    url: CLICK,
    payload: body,
    remoteAddress: from.ip ?? '10.0.0.1',
    headers: {
      'user-agent': from.ua ?? BROWSER,
      ...(from.key ? { authorization: `Bearer ${from.key}` } : {}),
      ...(from.forwardedFor ? { 'x-forwarded-for': from.forwardedFor } : {}),
    },
  });
}

async function clickId(t: TestApp, body: Record<string, unknown>, from: From = {}): Promise<string> {
  const response = await click(t, body, from);
  expect(response.statusCode, response.body).toBe(200);
  return response.json().click_id;
}

async function reportedClicks(t: TestApp, program: ProgramFixture): Promise<number> {
  const response = await t.app.inject({ method: 'GET', url: `/api/tracking/performance/${program.id}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return response.json().metrics.totalClicks;
}

async function setup(options: TestAppOptions = {}) {
  const t = await buildTestApp(options);
  const program = await t.program();
  return { t, program, ref: { ref: program.refCode } };
}

const minutesAfter = (minutes: number) => new Date(Date.parse(T0) + minutes * MINUTE).toISOString();

const notFound = (ref: string) => ({
  data: null,
  error: { status: 404, name: 'NotFoundError', message: `No active referral link with ref ${ref}`, details: null, code: 'not_found' },
});

describe('unique clicks', () => {
  test('the same visitor following the same link within the hour gets its first click id; one click is stored and reported', async () => {
    const { t, program, ref } = await setup();
    const first = await clickId(t, ref);
    t.clock.set(minutesAfter(59.99));
    expect(await clickId(t, ref)).toBe(first);
    expect(await t.count('clicks')).toBe(1);
    expect(await reportedClicks(t, program)).toBe(1);
  });

  test('another address or another User-Agent is another visitor: a new click', async () => {
    const { t, program, ref } = await setup();
    const first = await clickId(t, ref);
    const otherAddress = await clickId(t, ref, { ip: '10.0.0.2' });
    const otherAgent = await clickId(t, ref, { ua: 'curl/8.5.0' });
    expect(new Set([first, otherAddress, otherAgent]).size).toBe(3);
    expect(await reportedClicks(t, program)).toBe(3);
  });

  test("the same visitor on another partner's link: a new click", async () => {
    const { t, program, ref } = await setup();
    const other = await t.enroll(program.id, (await t.partner()).id);
    const first = await clickId(t, ref);
    expect(await clickId(t, { ref: other.refCode })).not.toBe(first);
    expect(await t.count('clicks')).toBe(2);
  });

  test('after the hour, by the service clock, the same visitor makes a new click', async () => {
    const { t, program, ref } = await setup();
    const first = await clickId(t, ref);
    t.clock.set(minutesAfter(60));
    const second = await clickId(t, ref);
    expect(second).not.toBe(first);
    t.clock.set(minutesAfter(100));
    expect(await clickId(t, ref)).toBe(second);
    expect(await reportedClicks(t, program)).toBe(2);
  });

  test('the check holds across a restart: the visitor hash and the salt are in the database file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'partnerkit-unique-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'partnerkit.duckdb');
    const before = await setup({ path });
    const first = await clickId(before.t, before.ref);
    await before.t.app.close();
    await before.t.store.close();

    const after = await buildTestApp({ path, now: minutesAfter(30) });
    expect(await clickId(after, before.ref)).toBe(first);
    expect(await clickId(after, before.ref, { ip: '10.0.0.9' })).not.toBe(first);
    expect(await after.count('clicks')).toBe(2);
  });

  test('visits this process remembers are answered without reading the store; one it no longer remembers is found there', async () => {
    const statements: string[] = [];
    const { t, ref } = await setup({ observeWrites: (sql) => statements.push(sql) });
    const storeLookups = () => statements.filter((sql) => sql.includes('visitor_hash = ANY')).length;
    // A process alone on its file knows a visit it does not remember is new; on a shared database
    // (PostgreSQL) another instance may have stored it, so each new visit is looked up once.
    const perNewVisit = t.store.shared ? 1 : 0;
    const first = await clickId(t, ref);
    expect(await clickId(t, ref)).toBe(first);
    expect(storeLookups()).toBe(perNewVisit);
    // Two hours on, another visitor's click makes memory drop the first visit as expired…
    t.clock.set(minutesAfter(120));
    await clickId(t, ref, { ip: '10.0.0.2' });
    // …so with the clock back inside the first visit's hour, only the store can answer.
    t.clock.set(minutesAfter(30));
    expect(await clickId(t, ref)).toBe(first);
    expect(storeLookups()).toBe(2 * perNewVisit + 1);
    expect(await t.count('clicks')).toBe(2);
  });

  test("a click whose batch was rolled back is not remembered: the visitor's next click is a new one, stored and then repeated", async () => {
    const { t, ref } = await setup();
    await clickId(t, ref, { ip: '10.0.0.9' }); // another visitor first: the installation's salt exists
    await t.store.transaction((sql) => sql.run('ALTER TABLE clicks RENAME TO clicks_offline'));
    expect((await click(t, ref, { ip: '10.0.0.1' })).statusCode).toBe(500);
    await t.store.transaction((sql) => sql.run('ALTER TABLE clicks_offline RENAME TO clicks'));
    const stored = await clickId(t, ref, { ip: '10.0.0.1' });
    expect(await clickId(t, ref, { ip: '10.0.0.1' })).toBe(stored);
    expect(await t.count('clicks')).toBe(2);
    expect(await t.count('clicks', `click_id = '${stored}'`)).toBe(1);
  });

  test('within one batch two identical visitors get one click', async () => {
    const statements: string[] = [];
    const { t, ref } = await setup({ observeWrites: (sql) => statements.push(sql) });
    await clickId(t, ref, { ip: '10.0.0.3' }); // the salt and what memory covers, read before the batch
    statements.length = 0;
    const browser = (ip: string) => ({ apiKey: null, ip, userAgent: BROWSER });
    const outcomes = await Promise.all([
      trackClick(t.deps, browser('10.0.0.1'), ref),
      trackClick(t.deps, browser('10.0.0.1'), ref),
      trackClick(t.deps, browser('10.0.0.2'), ref),
    ]);
    expect(outcomes).toEqual([
      { kind: 'recorded', clickId: expect.stringMatching(/^ck_2_/) },
      { kind: 'repeated', clickId: outcomes[0].kind === 'recorded' ? outcomes[0].clickId : '' },
      { kind: 'recorded', clickId: expect.stringMatching(/^ck_3_/) },
    ]);
    // One transaction (each engine words its BEGIN), one append of clicks (DuckDB also appends their pending range).
    expect(statements.filter((s) => /^(BEGIN|COMMIT|APPEND clicks)/.test(s)).map((s) => s.replace(/^BEGIN .*/, 'BEGIN'))).toEqual(['BEGIN', 'APPEND clicks', 'COMMIT']);
    expect(await t.count('clicks')).toBe(3);
  });

  test('--click-dedup-minutes 0: every click is stored', async () => {
    const { t, ref } = await setup({ clicks: { dedupMinutes: 0 } });
    expect(await clickId(t, ref)).not.toBe(await clickId(t, ref));
    expect(await t.count('clicks')).toBe(2);
  });

  test('--click-dedup-minutes 5: the window is five minutes', async () => {
    const { t, ref } = await setup({ clicks: { dedupMinutes: 5 } });
    const first = await clickId(t, ref);
    t.clock.set(minutesAfter(4.9));
    expect(await clickId(t, ref)).toBe(first);
    t.clock.set(minutesAfter(5));
    expect(await clickId(t, ref)).not.toBe(first);
  });

  test('test clicks are never deduplicated, and a live click never answers with a test click', async () => {
    const { t, program, ref } = await setup();
    const tests = [await clickId(t, { ...ref, test: true }), await clickId(t, { ...ref, test: true })];
    const live = await clickId(t, ref);
    expect(new Set([...tests, live]).size).toBe(3);
    expect(await t.count('clicks', 'is_test AND visitor_hash IS NULL')).toBe(2);
    expect(await reportedClicks(t, program)).toBe(1);
  });

  test('the address is never stored: a click keeps the salted hash, the salt is per installation', async () => {
    const { t, ref } = await setup();
    await clickId(t, ref);
    const columns = await t.store.read((sql) => sql.all<{ name: string }>("SELECT column_name AS name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'clicks' ORDER BY ordinal_position"));
    expect(columns.map((c) => c.name)).toEqual(['id', 'click_id', 'program_id', 'partner_program_id', 'landing_url', 'referrer', 'is_test', 'created_at', 'day', 'visitor_hash']);
    const { value: salt } = (await t.store.read((sql) => sql.one<{ value: string }>("SELECT value FROM settings WHERE name = 'visitor_salt'")))!;
    expect(salt).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await t.store.read((sql) => sql.one<{ visitor_hash: number }>('SELECT visitor_hash FROM clicks'));
    expect(stored).toEqual({ visitor_hash: visitorHash(salt, { ip: '10.0.0.1', userAgent: BROWSER }) });

    const other = await setup();
    await clickId(other.t, other.ref);
    const otherSalt = await other.t.store.read((sql) => sql.one<{ value: string }>('SELECT value FROM settings'));
    expect(otherSalt!.value).not.toBe(salt);
  });
});

describe('visitorHash', () => {
  const visitor = { ip: '203.0.113.7', userAgent: BROWSER };

  test('53 bits, the same for the same salt and visitor, another for another salt', () => {
    const hash = visitorHash('salt-a', visitor);
    expect(Number.isSafeInteger(hash) && hash >= 0).toBe(true);
    expect(visitorHash('salt-a', { ...visitor })).toBe(hash);
    expect(visitorHash('salt-b', visitor)).not.toBe(hash);
  });

  test('an IPv4 client seen on an IPv6 socket is the same visitor; address and agent are not run together', () => {
    expect(visitorHash('s', { ...visitor, ip: '::ffff:203.0.113.7' })).toBe(visitorHash('s', visitor));
    expect(visitorHash('s', { ip: '10.0.0.1', userAgent: '2x' })).not.toBe(visitorHash('s', { ip: '10.0.0.12', userAgent: 'x' }));
  });
});

describe('the per-address limit of the click endpoint', () => {
  test('the 4th click of an address within the window is 429 with Retry-After; other addresses go on; the window ends', async () => {
    freezeDate();
    const { t, ref } = await setup({ clicks: { rateLimit: { max: 3, windowSeconds: 60 } } });
    for (const ua of ['a', 'b', 'c']) expect((await click(t, ref, { ua })).statusCode).toBe(200);
    const limited = await click(t, ref, { ua: 'd' });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual(rateLimitedBody('Too many requests from this address', 60));
    expect(limited.headers['retry-after']).toBe('60');
    expect(limited.headers.connection).toBe('close'); // a flood cannot keep refused requests queued
    expect((await click(t, ref, { ip: '10.0.0.2' })).statusCode).toBe(200);
    expect(await t.count('clicks')).toBe(4);

    vi.setSystemTime(Date.parse(T0) + 45_000);
    expect((await click(t, ref, { ua: 'd' })).json()).toEqual(rateLimitedBody('Too many requests from this address', 15));
    vi.setSystemTime(Date.parse(T0) + 60_000);
    expect((await click(t, ref, { ua: 'd' })).statusCode).toBe(200);
  });

  test('the 429 carries the CORS headers, so the page can read it', async () => {
    const { t, ref } = await setup({ clicks: { rateLimit: { max: 1, windowSeconds: 60 } } });
    await click(t, ref);
    const limited = await t.app.inject({ method: 'POST', url: CLICK, payload: ref, remoteAddress: '10.0.0.1', headers: { origin: 'https://shop.example' } });
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['access-control-allow-origin']).toBe('https://shop.example');
  });

  test('server-side clicks are not limited per address, only per key', async () => {
    freezeDate();
    const { t, program, ref } = await setup({ clicks: { rateLimit: { max: 1, windowSeconds: 60 } }, rateLimit: { max: 3, windowSeconds: 1 } });
    for (let n = 0; n < 3; n++) expect((await click(t, { ...ref, ip: `203.0.113.${n}` }, { key: program.apiKey })).statusCode).toBe(200);
    const limited = await click(t, { ...ref, ip: '203.0.113.9' }, { key: program.apiKey });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual(rateLimitedBody('Too many requests for this API key', 1));
    expect(limited.headers.connection).toBe('close');
    // The address the backend calls from still has its browser allowance.
    expect((await click(t, ref)).statusCode).toBe(200);
  });
});

describe('--trust-proxy', () => {
  test('off: X-Forwarded-For is ignored; the socket address is the client', async () => {
    const { t, ref } = await setup({ clicks: { rateLimit: { max: 2, windowSeconds: 60 } } });
    const first = await clickId(t, ref, { forwardedFor: '198.51.100.1' });
    expect(await clickId(t, ref, { forwardedFor: '198.51.100.2' })).toBe(first);
    expect((await click(t, ref, { forwardedFor: '198.51.100.3' })).statusCode).toBe(429);
  });

  test('on: the client is the address X-Forwarded-For names', async () => {
    const { t, ref } = await setup({ trustProxy: true, clicks: { rateLimit: { max: 2, windowSeconds: 60 } } });
    const first = await clickId(t, ref, { forwardedFor: '198.51.100.1' });
    expect(await clickId(t, ref, { forwardedFor: '198.51.100.2' })).not.toBe(first);
    expect(await clickId(t, ref, { forwardedFor: '198.51.100.1', ip: '10.0.0.7' })).toBe(first);
    expect((await click(t, ref, { forwardedFor: '198.51.100.1' })).statusCode).toBe(429);
    expect((await click(t, ref, { forwardedFor: '198.51.100.2' })).statusCode).toBe(200);
  });

  test('on: only the address the proxy appended counts; what the client wrote before it is ignored', async () => {
    const { t, ref } = await setup({ trustProxy: true, clicks: { rateLimit: { max: 2, windowSeconds: 60 } } });
    const first = await clickId(t, ref, { forwardedFor: '203.0.113.9, 198.51.100.1' });
    expect(await clickId(t, ref, { forwardedFor: '203.0.113.10, 198.51.100.1' })).toBe(first);
    expect((await click(t, ref, { forwardedFor: '203.0.113.11, 198.51.100.1' })).statusCode).toBe(429);
  });
});

describe('--trust-proxy with a list of proxies', () => {
  const proxies = { trustProxy: ['10.0.0.0/8', '192.0.2.1', '2001:db8::/32'], clicks: { rateLimit: { max: 2, windowSeconds: 60 } } };

  test('a request from a listed address or range has X-Forwarded-For read; one from any other address is its own client', async () => {
    const { t, ref } = await setup(proxies);
    const first = await clickId(t, ref, { ip: '10.1.2.3', forwardedFor: '198.51.100.1' });
    expect(await clickId(t, ref, { ip: '192.0.2.1', forwardedFor: '198.51.100.2' })).not.toBe(first);
    expect(await clickId(t, ref, { ip: '2001:db8::7', forwardedFor: '198.51.100.1' })).toBe(first);
    expect((await click(t, ref, { ip: '10.9.9.9', forwardedFor: '198.51.100.1' })).statusCode).toBe(429);

    // Not a proxy: whatever it forwards, it is one visitor with its own allowance.
    const direct = await clickId(t, ref, { ip: '203.0.113.5', forwardedFor: '198.51.100.3' });
    expect(await clickId(t, ref, { ip: '203.0.113.5', forwardedFor: '198.51.100.4' })).toBe(direct);
    expect((await click(t, ref, { ip: '203.0.113.5', forwardedFor: '198.51.100.5' })).statusCode).toBe(429);
    expect((await click(t, ref, { ip: '10.0.0.1', forwardedFor: '198.51.100.2' })).statusCode).toBe(200);
  });

  test('a chain of listed proxies is walked from the right; the first address not listed is the client', async () => {
    const { t, ref } = await setup(proxies);
    const first = await clickId(t, ref, { ip: '10.0.0.1', forwardedFor: '203.0.113.9, 198.51.100.1, 10.0.0.2' });
    expect(await clickId(t, ref, { ip: '10.0.0.1', forwardedFor: '203.0.113.10, 198.51.100.1, 10.0.0.3' })).toBe(first);
    expect((await click(t, ref, { ip: '10.0.0.1', forwardedFor: '198.51.100.1' })).statusCode).toBe(429);
  });
});

describe('server-side clicks (the program API key)', () => {
  test("the body's ip and user_agent are the visitor: the same across calls and from the browser itself", async () => {
    const { t, program, ref } = await setup();
    const visitor = { ip: '203.0.113.7', user_agent: BROWSER };
    const first = await clickId(t, { ...ref, ...visitor }, { key: program.apiKey, ip: '10.9.9.9', ua: 'merchant-backend/1.0' });
    expect(await clickId(t, { ...ref, ...visitor }, { key: program.apiKey, ip: '10.9.9.8' })).toBe(first);
    expect(await clickId(t, ref, { ip: '203.0.113.7', ua: BROWSER })).toBe(first);
    expect(await clickId(t, { ...ref, ip: '203.0.113.8', user_agent: BROWSER }, { key: program.apiKey })).not.toBe(first);
    expect(await t.count('clicks')).toBe(2);
  });

  test('without ip the click names no visitor and is not deduplicated', async () => {
    const { t, program, ref } = await setup();
    expect(await clickId(t, ref, { key: program.apiKey })).not.toBe(await clickId(t, { ...ref, user_agent: BROWSER }, { key: program.apiKey }));
    expect(await t.count('clicks', 'visitor_hash IS NULL')).toBe(2);
  });

  test("a ref of another program is 404 like an unknown ref; nothing stored", async () => {
    const { t, program } = await setup();
    const other = await t.program();
    const response = await click(t, { ref: other.refCode, ip: '203.0.113.7' }, { key: program.apiKey });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual(notFound(other.refCode));
    expect(await t.count('clicks')).toBe(0);
  });

  test('the test key makes a test click', async () => {
    const { t, program, ref } = await setup();
    const visitor = { ip: '203.0.113.7', user_agent: BROWSER };
    expect(await clickId(t, { ...ref, ...visitor }, { key: program.testApiKey })).not.toBe(await clickId(t, { ...ref, ...visitor }, { key: program.testApiKey }));
    expect(await t.count('clicks', 'is_test')).toBe(2);
  });

  test.each([
    ['an unknown key', 'pk_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', unauthorized(API_KEY_MESSAGES.refused)],
    ['a malformed header', '', unauthorized(API_KEY_MESSAGES.missing)],
  ])('%s is 401, nothing stored', async (_name, key, body) => {
    const { t, ref } = await setup();
    const response = await t.app.inject({ method: 'POST', url: CLICK, payload: { ...ref, ip: '203.0.113.7' }, headers: { authorization: `Bearer ${key}`.trim() } });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual(body);
    expect(await t.count('clicks')).toBe(0);
  });

  test.each([
    ['ip', { ip: '203.0.113.7' }, ['ip']],
    ['user_agent', { user_agent: BROWSER }, ['user_agent']],
    ['both', { ip: '203.0.113.7', user_agent: BROWSER }, ['ip', 'user_agent']],
  ])('a browser (no key) naming a visitor (%s) is 400 invalid_request; nothing stored', async (_name, fields, named) => {
    const { t, ref } = await setup();
    const response = await click(t, { ...ref, ...fields });
    const message = "Only a server-side click, sent with the program's API key, names its visitor";
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      data: null,
      error: {
        status: 400,
        name: 'ValidationError',
        code: 'invalid_request',
        message: `Invalid request: ${named.map((field) => `${field}: ${message}`).join('; ')}`,
        details: { fields: named.map((field) => ({ field, message })) },
      },
    });
    expect(await t.count('clicks')).toBe(0);
  });

  test.each([
    ['not an address', { ip: 'localhost' }, 'ip'],
    ['an address with a port', { ip: '203.0.113.7:443' }, 'ip'],
    ['a User-Agent over 1,024 characters', { ip: '203.0.113.7', user_agent: 'x'.repeat(1025) }, 'user_agent'],
  ])('%s is 400 invalid_request naming the field', async (_name, fields, field) => {
    const { t, program, ref } = await setup();
    const response = await click(t, { ...ref, ...fields }, { key: program.apiKey });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
  });

  test('IPv6 visitors are accepted', async () => {
    const { t, program, ref } = await setup();
    const first = await clickId(t, { ...ref, ip: '2001:db8::1' }, { key: program.apiKey });
    expect(await clickId(t, { ...ref, ip: '2001:DB8::1' }, { key: program.apiKey })).toBe(first);
  });
});

describe('landing_url and referrer are http(s) URLs', () => {
  test.each([
    ['landing_url', 'javascript:alert(10)'],
    ['landing_url', '=HYPERLINK("https://evil.example","click")'],
    ['landing_url', 'data:text/html,<script>alert(1)</script>'],
    ['referrer', 'ftp://files.example/'],
    ['referrer', '@SUM(1+1)'],
    ['referrer', ''],
  ])('%s %j: 400 invalid_request naming the field, nothing stored', async (field, value) => {
    const t = await buildTestApp();
    const program = await t.program();
    const response = await click(t, { ref: program.refCode, [field]: value });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      status: 400, code: 'invalid_request', details: { fields: [{ field, message: 'must be an http or https URL' }] },
    });
    expect(await t.count('clicks')).toBe(0);
  });
});
