import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, buildTestApp } from '../helpers/app.js';
import { CONTENT_SECURITY_POLICY } from '../../src/http/routes/pages.js';

/** Serving the pages (docs/pages.md#serving-caching-and-the-session), over a build of them made for this file. */
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'partnerkit-pages-'));
  execFileSync(process.execPath, ['scripts/build-web.mjs', dir]);
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);

describe('the pages', () => {
  test.each(['dashboard', 'portal'])('/%s: the HTML, never cached, with the policy; it names a hashed script and stylesheet, each immutable', async (page) => {
    const t = await buildTestApp({ pages: dir });
    const response = await t.app.inject({ method: 'GET', url: `/${page}` });
    expect(response.statusCode).toBe(200);
    expect(response.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self';");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
    // No inline script or style in the page itself: the policy would refuse it.
    expect(response.body).not.toMatch(/<script(?![^>]*\bsrc=)|<style|style="/);
    const assets = assetsOf(response.body);
    expect(assets).toEqual([expect.stringMatching(new RegExp(`^/assets/${page}-[A-Z0-9]{8}\\.css$`)), expect.stringMatching(new RegExp(`^/assets/${page}-[A-Z0-9]{8}\\.js$`))]);
    for (const asset of assets) {
      const file = await t.app.inject({ method: 'GET', url: asset });
      expect(file.statusCode).toBe(200);
      expect(file.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(file.headers['content-type']).toMatch(asset.endsWith('.js') ? /^application\/javascript/ : /^text\/css/);
      expect(file.body).toBe(readFileSync(join(dir, asset)).toString());
    }
  });

  test("the dashboard's section URLs answer the dashboard page, with its headers; other paths stay 404", async () => {
    const t = await buildTestApp({ pages: dir });
    const dashboard = await t.app.inject({ method: 'GET', url: '/dashboard' });
    for (const url of ['/dashboard/overview', '/dashboard/partners/12?program=1&period=30d', '/dashboard/settings/', '/dashboard/no-such-section']) {
      const response = await t.app.inject({ method: 'GET', url });
      expect([response.statusCode, response.body], url).toEqual([200, dashboard.body]);
      expect(response.headers).toMatchObject({ 'cache-control': 'no-store', 'content-security-policy': CONTENT_SECURITY_POLICY });
    }
    expect((await t.app.inject({ method: 'GET', url: '/portal/overview' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/dashboards' })).statusCode).toBe(404);
  });

  test('each page loads at most 150 KB of gzipped JavaScript and nothing from another origin', () => {
    for (const file of readdirSync(join(dir, 'assets'))) {
      const text = readFileSync(join(dir, 'assets', file));
      if (file.endsWith('.js')) expect(gzipSync(text).length, file).toBeLessThanOrEqual(150 * 1024);
      expect(text.toString(), file).not.toMatch(/https?:\/\/(?!www\.w3\.org)/);
    }
  });

  test('an unknown asset is 404; API answers are no-store; without a build the pages say how to build them', async () => {
    const t = await buildTestApp({ pages: dir });
    expect((await t.app.inject({ method: 'GET', url: '/assets/nope.js' })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/assets/../dashboard.html' })).statusCode).toBe(404);
    const api = await t.app.inject({ method: 'GET', url: '/api/admin/programs', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect([api.statusCode, api.headers['cache-control']]).toEqual([200, 'no-store']);
    const refused = await t.app.inject({ method: 'GET', url: '/api/tracking/performance/1' });
    expect([refused.statusCode, refused.headers['cache-control']]).toEqual([401, 'no-store']);

    const unbuilt = await buildTestApp({ pages: join(dir, 'missing') });
    const page = await unbuilt.app.inject({ method: 'GET', url: '/dashboard' });
    expect([page.statusCode, page.body]).toEqual([503, `The pages are not built: run npm run build (no ${join(dir, 'missing', 'dashboard.html')}).\n`]);
  });
});

describe('the root, the icon and missing assets (docs/operations.md#the-pages-root)', () => {
  /** An app with the pages and its request log, as `serve` has them. */
  async function withLog() {
    const lines: Array<Record<string, unknown>> = [];
    const t = await buildTestApp({ pages: dir, log: { level: 'info', stream: { write: (line) => lines.push(JSON.parse(line)) } } });
    return { t, lines };
  }

  test('GET / redirects to the dashboard; /favicon.ico is the icon, cached a day', async () => {
    const { t } = await withLog();
    const root = await t.app.inject({ method: 'GET', url: '/' });
    expect([root.statusCode, root.headers.location]).toEqual([302, '/dashboard']);
    const icon = await t.app.inject({ method: 'GET', url: '/favicon.ico' });
    expect([icon.statusCode, icon.headers['content-type'], icon.headers['cache-control']]).toEqual([200, 'image/x-icon', 'public, max-age=86400']);
    expect(icon.rawPayload.equals(readFileSync(join(dir, 'favicon.ico')))).toBe(true);
    expect(icon.rawPayload.subarray(0, 4).toString('hex')).toBe('00000100');
  });

  test.each(['/assets/.env', '/assets/.git/config', '/assets/nope.js'])('%s: 404 in the platform envelope, logged as a request, not as an error', async (url) => {
    const { t, lines } = await withLog();
    const response = await t.app.inject({ method: 'GET', url });
    expect([response.statusCode, response.json()]).toEqual([
      404,
      { data: null, error: { status: 404, name: 'NotFoundError', message: `No route for GET ${url}`, details: null, code: 'not_found' } },
    ]);
    expect(lines.map((line) => [line.level, line.msg])).toEqual([['info', 'request']]);
  });

  test('a Range outside the file: 416 in the platform envelope, no error logged; a path with a NUL byte: 400', async () => {
    const { t, lines } = await withLog();
    const [asset] = readdirSync(join(dir, 'assets'));
    for (const range of ['bytes=99999999-', 'bytes=5-2']) {
      const response = await t.app.inject({ method: 'GET', url: `/assets/${asset}`, headers: { range } });
      expect([response.statusCode, response.json()]).toEqual([
        416,
        { data: null, error: { status: 416, name: 'RangeNotSatisfiableError', message: 'The Range header asks for bytes outside the file', details: null, code: 'range_not_satisfiable' } },
      ]);
    }
    const partial = await t.app.inject({ method: 'GET', url: `/assets/${asset}`, headers: { range: 'bytes=0-9' } });
    expect([partial.statusCode, partial.body]).toEqual([206, readFileSync(join(dir, 'assets', asset)).subarray(0, 10).toString()]);
    const nul = await t.app.inject({ method: 'GET', url: '/assets/a%00b' });
    expect([nul.statusCode, nul.json().error.code]).toEqual([400, 'invalid_request']);
    expect(lines.map((line) => [line.level, line.msg])).toEqual(Array(4).fill(['info', 'request']));
  });
});
