import { describe, expect, test } from 'vitest';
import { LINK_PAGES } from '../../src/web/link-pages.js';
import { ADMIN_TOKEN, buildTestApp, freezeDate, rateLimitedBody, type TestApp, type TestAppOptions } from '../helpers/app.js';

/**
 * Partner links (docs/tracking.md#landing-url, docs/tracking.md#partner-links-get-rrefcode): GET /r/:refCode records a click like the click
 * endpoint (the same batch, unique clicks and per-address limit) and redirects to the program's
 * landing URL with the click id; `to` only on the landing URL's origin.
 */
const LANDING = 'https://shop.example/welcome';
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0';

type From = { ip?: string; ua?: string; referer?: string };

function follow(t: TestApp, path: string, from: From = {}, method: 'GET' | 'HEAD' = 'GET') {
  return t.app.inject({
    method,
    url: path,
    remoteAddress: from.ip ?? '10.0.0.1',
    headers: { 'user-agent': from.ua ?? BROWSER, ...(from.referer ? { referer: from.referer } : {}) },
  });
}

async function setup(options: TestAppOptions = {}, landingUrl: string | null = LANDING) {
  const t = await buildTestApp(options);
  const program = await t.program({ landingUrl });
  return { t, program, link: `/r/${program.refCode}` };
}

type StoredClick = { click_id: string; partner_program_id: number; landing_url: string | null; referrer: string | null; is_test: boolean; visitor_hash: number | null };
const storedClicks = (t: TestApp) =>
  t.store.read((sql) => sql.all<StoredClick>('SELECT click_id, partner_program_id, landing_url, referrer, is_test, visitor_hash FROM clicks ORDER BY id'));

/** The redirect's target without its click id, and the click id. */
function redirected(response: { statusCode: number; headers: Record<string, unknown>; body: string }): { target: string; clickId: string | null } {
  expect(response.statusCode, response.body).toBe(302);
  const location = new URL(String(response.headers.location));
  const clickId = location.searchParams.get('partner_click_id');
  location.searchParams.delete('partner_click_id');
  return { target: location.href, clickId };
}

describe('GET /r/:refCode', () => {
  test('records one click and redirects (302) to the landing URL with partner_click_id; never cached', async () => {
    const { t, program, link } = await setup();
    const response = await follow(t, link, { referer: 'https://blog.example/post' });
    expect(response.statusCode).toBe(302);
    expect(response.headers['cache-control']).toBe('no-store');
    const [click] = await storedClicks(t);
    expect(response.headers.location).toBe(`${LANDING}?partner_click_id=${click.click_id}`);
    expect(click).toMatchObject({ partner_program_id: program.partnerProgramId, landing_url: LANDING, referrer: 'https://blog.example/post', is_test: false });
    expect(click.visitor_hash).toEqual(expect.any(Number));
    expect(await t.count('clicks')).toBe(1);
    // The click id works like the click endpoint's: a lead with it is attributed to the partner.
    const lead = await t.post('/api/v1/track/lead', { customer_key: 'cust_1', click_id: click.click_id }, program.apiKey);
    expect(lead.json()).toEqual({ success: true, customer_id: 1, message: 'Lead tracked' });
  });

  test("the landing URL's query and fragment are kept; the click id joins the query", async () => {
    const { t, link } = await setup({}, 'https://shop.example/welcome?utm_source=partners&lang=en#top');
    const response = await follow(t, link);
    const [click] = await storedClicks(t);
    expect(response.headers.location).toBe(`https://shop.example/welcome?utm_source=partners&lang=en&partner_click_id=${click.click_id}#top`);
  });

  test.each([
    ['a path', '/pricing?plan=pro', 'https://shop.example/pricing?plan=pro'],
    ['a path relative to the landing URL', 'pricing', 'https://shop.example/pricing'],
    ['a URL on the landing origin', 'https://shop.example/blog/post-1#comments', 'https://shop.example/blog/post-1#comments'],
    ['the same scheme with no slashes (a relative reference)', 'https:evil.example', 'https://shop.example/evil.example'],
    ['a double-encoded //', '%252F%252Fevil.example', 'https://shop.example/%2F%2Fevil.example'],
    ['a path that already names a click id (replaced)', '/x?partner_click_id=forged', 'https://shop.example/x'],
    ['a path with characters outside ASCII (percent-encoded, a valid Location)', '/café?q=ü#ß', 'https://shop.example/caf%C3%A9?q=%C3%BC#%C3%9F'],
  ])('?to= %s: honoured on the landing origin', async (_name, to, target) => {
    const { t, link } = await setup();
    const response = await follow(t, `${link}?to=${to.startsWith('%') ? to : encodeURIComponent(to)}`);
    const [click] = await storedClicks(t);
    expect(redirected(response)).toEqual({ target, clickId: click.click_id });
    expect(click.landing_url).toBe(target);
  });

  test.each([
    ['a protocol-relative URL', '//evil.example/x'],
    ['another host', 'https://evil.example/'],
    ['a backslash the URL parser reads as a slash', '/\\evil.example'],
    ['backslashes only', '\\\\evil.example'],
    ['a scheme with backslashes', 'https:\\\\evil.example'],
    ['an encoded //', '%2F%2Fevil.example'],
    ['an encoded /\\', '%2F%5Cevil.example'],
    ['a tab the URL parser drops', '/%09/evil.example'],
    ['a lookalike host', 'https://shop.example.evil.example/'],
    ['user info naming the landing host', 'https://shop.example@evil.example/'],
    ['a fragment naming the landing host', 'https://evil.example#@shop.example'],
    ['another scheme on the landing host', 'http://shop.example/'],
    ['another port on the landing host', 'https://shop.example:8443/'],
    ['user info on the landing host', 'https://user:pw@shop.example/'],
    ['javascript:', 'javascript:alert(1)'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['not a URL at all', 'http://[::1'],
  ])('?to= %s: ignored, the visitor lands on the landing URL (never an open redirect)', async (_name, to) => {
    const { t, link } = await setup();
    const response = await follow(t, `${link}?to=${to.startsWith('%') || to.startsWith('/%') ? to : encodeURIComponent(to)}`);
    const [click] = await storedClicks(t);
    expect(redirected(response)).toEqual({ target: LANDING, clickId: click.click_id });
  });

  test('an unknown ref answers the not-found page (404, HTML); nothing is stored and the ref is not echoed', async () => {
    const { t } = await setup();
    const response = await follow(t, '/r/%3Cscript%3Enope');
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toBe(LINK_PAGES.unknown_ref);
    expect(response.body).not.toContain('nope');
    expect(await t.count('clicks')).toBe(0);
  });

  test('an inactive enrollment answers the not-found page; nothing is stored', async () => {
    const { t, link } = await setup();
    await t.store.transaction((sql) => sql.write({ table: 'partner_programs', set: "status = 'inactive'", where: 'true' }));
    const response = await follow(t, link);
    expect(response.statusCode).toBe(404);
    expect(response.body).toBe(LINK_PAGES.unknown_ref);
    expect(await t.count('clicks')).toBe(0);
  });

  test('a program without a landing URL: the page that says so (404); nothing is stored', async () => {
    const { t, link } = await setup({}, null);
    const response = await follow(t, link);
    expect(response.statusCode).toBe(404);
    expect(response.body).toBe(LINK_PAGES.no_landing_url);
    expect(await t.count('clicks')).toBe(0);
  });

  test('a landing URL changed through PATCH /api/admin/programs/:programId takes effect at once; cleared, the link leads nowhere', async () => {
    const { t, program, link } = await setup();
    await follow(t, link, { ua: 'first' });
    const setLandingUrl = (programId: number, landingUrl: string | null) =>
      t.app.inject({ method: 'PATCH', url: `/api/admin/programs/${programId}`, headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { landingUrl } });
    expect((await setLandingUrl(program.id, 'https://new.example/start')).statusCode).toBe(200);
    expect(redirected(await follow(t, link, { ua: 'second' })).target).toBe('https://new.example/start');
    expect((await setLandingUrl(program.id, null)).statusCode).toBe(200);
    expect((await follow(t, link, { ua: 'third' })).body).toBe(LINK_PAGES.no_landing_url);
    expect(await t.count('clicks')).toBe(2);
    expect((await setLandingUrl(999, LANDING)).json()).toMatchObject({ error: { code: 'not_found', message: 'Program 999 not found' } });
  });

  test('HEAD (link checkers, previews) redirects without recording a click', async () => {
    const { t, link } = await setup();
    const response = await follow(t, link, {}, 'HEAD');
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(LANDING);
    expect(await t.count('clicks')).toBe(0);
  });

  test('a repeated `to` or one over 2,048 characters is 400 invalid_request; nothing is stored', async () => {
    const { t, link } = await setup();
    for (const query of ['to=/a&to=/b', `to=/${'a'.repeat(2048)}`]) {
      const response = await follow(t, `${link}?${query}`);
      expect(response.statusCode).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'invalid_request', details: { fields: [expect.objectContaining({ field: 'to' })] } });
    }
    expect(await t.count('clicks')).toBe(0);
  });
});

describe('partner links share the click path', () => {
  test('unique clicks: the same visitor gets its first click id again, through the link or the click endpoint; another visitor gets a new one', async () => {
    const { t, program, link } = await setup();
    const first = redirected(await follow(t, link)).clickId;
    expect(redirected(await follow(t, link)).clickId).toBe(first);
    const endpoint = await t.app.inject({ method: 'POST', url: '/api/v1/track/click', payload: { ref: program.refCode }, remoteAddress: '10.0.0.1', headers: { 'user-agent': BROWSER } });
    expect(endpoint.json()).toEqual({ click_id: first });
    expect(redirected(await follow(t, link, { ua: 'another browser' })).clickId).not.toBe(first);
    expect(await t.count('clicks')).toBe(2);
  });

  test("the per-address limit counts both: over it, the link still redirects but records nothing, and the endpoint answers 429", async () => {
    freezeDate();
    const { t, program, link } = await setup({ clicks: { rateLimit: { max: 3, windowSeconds: 60 } } });
    const endpoint = () => t.app.inject({ method: 'POST', url: '/api/v1/track/click', payload: { ref: program.refCode }, remoteAddress: '10.0.0.1', headers: { 'user-agent': 'x' } });
    expect((await endpoint()).statusCode).toBe(200);
    expect(redirected(await follow(t, link, { ua: 'a' })).clickId).not.toBeNull();
    expect(redirected(await follow(t, link, { ua: 'b' })).clickId).not.toBeNull();

    const over = await follow(t, link, { ua: 'c' });
    expect(over.statusCode).toBe(302);
    expect(over.headers.location).toBe(LANDING);
    expect(over.headers['retry-after']).toBeUndefined();
    const refused = await endpoint();
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual(rateLimitedBody('Too many requests from this address', 60));
    expect(await t.count('clicks')).toBe(3);
    // Another address has its own allowance.
    expect(redirected(await follow(t, link, { ip: '10.0.0.2' })).clickId).not.toBeNull();
  });

  test('concurrent visits by different visitors: one click each, all in one or a few batches', async () => {
    const { t, link } = await setup();
    const responses = await Promise.all(Array.from({ length: 40 }, (_, n) => follow(t, link, { ua: `visitor ${n}` })));
    const ids = responses.map((r) => redirected(r).clickId);
    expect(new Set(ids).size).toBe(40);
    expect((await storedClicks(t)).map((c) => c.click_id).sort()).toEqual([...ids].sort());
  });
});

describe('landing URL and partner links in the admin API', () => {
  const admin = (t: TestApp, method: 'GET' | 'POST', url: string, payload?: object) =>
    t.app.inject({ method, url: `/api/admin${url}`, payload, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });

  test('program create takes landingUrl, normalized as the URL parser writes it; the view shows it (null by default)', async () => {
    const t = await buildTestApp();
    const created = (await admin(t, 'POST', '/programs', { name: 'A', landingUrl: 'HTTPS://Shop.Example:443/welcome' })).json();
    expect(created.landingUrl).toBe('https://shop.example/welcome');
    expect((await admin(t, 'GET', `/programs/${created.id}`)).json().landingUrl).toBe('https://shop.example/welcome');
    expect((await admin(t, 'POST', '/programs', { name: 'B' })).json().landingUrl).toBeNull();
  });

  test.each([
    ['javascript:alert(1)'],
    ['ftp://shop.example/'],
    ['/welcome'],
    ['https://user:pw@shop.example/'],
    [`https://shop.example/${'a'.repeat(2048)}`],
    [42],
  ])('landingUrl %s: 400 invalid_request naming it; no program', async (landingUrl) => {
    const t = await buildTestApp();
    const response = await admin(t, 'POST', '/programs', { name: 'A', landingUrl });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details.fields.map((f: { field: string }) => f.field)).toEqual(['landingUrl']);
    expect(await t.count('programs')).toBe(0);
  });

  test("GET /api/admin/programs/:programId/partners/:partnerId: the partner's referral code and links", async () => {
    const { t, program } = await setup({}, 'https://shop.example/welcome?lang=en');
    const response = await admin(t, 'GET', `/programs/${program.id}/partners/${program.partnerId}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      programId: program.id,
      partnerId: program.partnerId,
      refCode: program.refCode,
      status: 'active',
      linkPath: `/r/${program.refCode}`,
      landingUrl: 'https://shop.example/welcome?lang=en',
      viaUrl: `https://shop.example/welcome?lang=en&via=${program.refCode}`,
    });
  });

  test('partner links without a landing URL; a partner not enrolled and an unknown program are 404', async () => {
    const { t, program } = await setup({}, null);
    expect((await admin(t, 'GET', `/programs/${program.id}/partners/${program.partnerId}`)).json()).toMatchObject({ landingUrl: null, viaUrl: null });
    const outsider = await t.partner();
    const notEnrolled = await admin(t, 'GET', `/programs/${program.id}/partners/${outsider.id}`);
    expect(notEnrolled.statusCode).toBe(404);
    expect(notEnrolled.json().error.message).toBe(`Partner ${outsider.id} is not enrolled in program ${program.id}`);
    expect((await admin(t, 'GET', `/programs/999/partners/${program.partnerId}`)).json().error).toMatchObject({ code: 'not_found', message: 'Program 999 not found' });
  });
});

describe('the Referer of a partner link', () => {
  test.each([
    ['=HYPERLINK("https://evil.example","x")'],
    ['javascript:alert(10)'],
    ['android-app://com.example.app/'],
  ])('%j is not a web address: the visitor is redirected and the click stored without a referrer', async (referer) => {
    const { t, link } = await setup();
    const response = await follow(t, link, { referer });
    const { target, clickId } = redirected(response);
    expect(target).toBe(LANDING);
    expect(await storedClicks(t)).toEqual([expect.objectContaining({ click_id: clickId, landing_url: LANDING, referrer: null })]);
  });
});
