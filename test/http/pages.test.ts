import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, buildTestApp } from '../helpers/app.js';
import { CONTENT_SECURITY_POLICY } from '../../src/http/routes/pages.js';

/** Serving the pages (docs/behaviour.md §16.1), over a build of them made for this file. */
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
