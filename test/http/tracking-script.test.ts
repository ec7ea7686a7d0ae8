import { describe, expect, test } from 'vitest';
import { buildTestApp } from '../helpers/app.js';

/** GET /pk.js (docs/tracking.md#the-tracking-script-get-pkjsprogramprogramid) as HTTP; what it does in a browser: test/browser/tracking-script.test.ts. */
describe('GET /pk.js', () => {
  const get = (t: Awaited<ReturnType<typeof buildTestApp>>, url: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'GET', url, headers });

  test('plain JavaScript under 4 KB, cacheable for 5 minutes with an ETag; the cookie lives for the program’s attribution window', async () => {
    const t = await buildTestApp();
    const program = await t.program({ attributionWindowDays: 30 });
    const response = await get(t, `/pk.js?program=${program.id}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(response.headers['cache-control']).toBe('public, max-age=300');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers.etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(Buffer.byteLength(response.body)).toBeLessThanOrEqual(4096);
    expect(response.body).toContain(`MAX_AGE = ${30 * 86_400}`);
    expect(response.body).not.toMatch(/\b(import|require)\b/);
    expect(() => new Function(response.body)).not.toThrow();
  });

  test('If-None-Match with its ETag (also weak, in a list, or *) is 304 without a body; another window is another ETag', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const other = await t.program({ attributionWindowDays: 7 });
    const { etag } = (await get(t, `/pk.js?program=${program.id}`)).headers as { etag: string };
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const cached = await get(t, `/pk.js?program=${program.id}`, { 'if-none-match': ifNoneMatch });
      expect(cached.statusCode, ifNoneMatch).toBe(304);
      expect(cached.body).toBe('');
      expect(cached.headers.etag).toBe(etag);
    }
    expect((await get(t, `/pk.js?program=${program.id}`, { 'if-none-match': '"stale"' })).statusCode).toBe(200);
    const otherEtag = (await get(t, `/pk.js?program=${other.id}`)).headers.etag;
    expect(otherEtag).not.toBe(etag);
  });

  test('without a program, or with a malformed one: 400 invalid_request; an unknown program: 404', async () => {
    const t = await buildTestApp();
    for (const url of ['/pk.js', '/pk.js?program=abc', '/pk.js?program=01']) {
      const response = await get(t, url);
      expect(response.statusCode, url).toBe(400);
      expect(response.json().error).toMatchObject({ code: 'invalid_request', details: { fields: [expect.objectContaining({ field: 'program' })] } });
    }
    const unknown = await get(t, '/pk.js?program=99');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error).toMatchObject({ code: 'not_found', message: 'Program 99 not found' });
  });
});
