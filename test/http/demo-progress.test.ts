import { describe, expect, test, vi } from 'vitest';
import type { DemoProgress, DemoResult } from '../../src/api/index.js';
import { loadDemo } from '../../src/domain/demo.js';
import { injectTransport } from '../../src/local.js';
import { PartnerkitClient } from '../../src/sdk/client.js';
import { ADMIN_TOKEN, buildTestApp } from '../helpers/app.js';

// The demo load's progress (docs/api.md#demo-data, docs/cli.md#demo-progress).
const OPTIONS = { days: 5, clicks: 2000, seed: 3 };

/** The phases in order, each with the clicks written when it was reported. */
function expectPhases(progress: DemoProgress[]) {
  const clicks = progress.filter((p) => p.phase === 'clicks');
  expect(clicks.length).toBeGreaterThan(0);
  for (const [i, p] of clicks.entries()) {
    expect(p.total).toBe(OPTIONS.clicks);
    expect(p.done).toBeGreaterThan(i === 0 ? 0 : clicks[i - 1].done);
    expect(p.done).toBeLessThan(OPTIONS.clicks);
  }
  // Every click is written, then the leads and sales, then the commit: each announced once, in order.
  expect(progress.slice(clicks.length)).toEqual([
    { phase: 'sales', done: OPTIONS.clicks, total: OPTIONS.clicks },
    { phase: 'commit', done: OPTIONS.clicks, total: OPTIONS.clicks },
  ]);
  expect(progress.slice(0, clicks.length)).toEqual(clicks);
}

describe('demo load progress', () => {
  test('the loader reports each day of clicks, then the leads and sales, then the commit', async () => {
    const t = await buildTestApp();
    const progress: DemoProgress[] = [];
    const result = await loadDemo(t.deps, OPTIONS, (p) => progress.push(p));
    expect(result.counts.clicks).toBe(OPTIONS.clicks);
    expectPhases(progress);
  });

  test('POST /api/admin/demo with Accept: application/x-ndjson streams the progress, then the result', async () => {
    const t = await buildTestApp();
    const response = await t.app.inject({
      method: 'POST', url: '/api/admin/demo', payload: OPTIONS, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'application/x-ndjson' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/x-ndjson');
    expect(response.body.endsWith('\n')).toBe(true);
    const lines = response.body.trimEnd().split('\n').map((line) => JSON.parse(line));
    expectPhases(lines.slice(0, -1).map((line) => line.progress));
    const { result } = lines.at(-1) as { result: DemoResult };
    expect(result).toMatchObject({ programId: 1, counts: { clicks: OPTIONS.clicks } });

    // The same load asked for JSON answers the same history in one document, as before.
    const other = await buildTestApp();
    const plain = await other.app.inject({ method: 'POST', url: '/api/admin/demo', payload: OPTIONS, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
    expect(plain.json()).toEqual({
      ...result, apiKey: expect.any(String), testApiKey: expect.any(String), sessionToken: expect.any(String), partnerSessionToken: expect.any(String),
      signInCode: expect.any(String), partnerSignInCode: expect.any(String),
    });

    // Both answers are in the OpenAPI document.
    const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(Object.keys(doc.paths['/api/admin/demo'].post.responses['200'].content)).toEqual(['application/json', 'application/x-ndjson']);
  });

  test('a load that fails after the stream began ends it with the error envelope; the SDK throws it', async () => {
    const t = await buildTestApp();
    vi.spyOn(t.store, 'bulkLoad').mockRejectedValue(new Error('IO Error: simulated failure'));
    const response = await t.app.inject({
      method: 'POST', url: '/api/admin/demo', payload: OPTIONS, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'application/x-ndjson' },
    });
    expect(response.statusCode).toBe(200);
    expect(response.body.trimEnd().split('\n').map((line) => JSON.parse(line))).toEqual([{
      data: null,
      error: {
        status: 500, name: 'InternalServerError', code: 'internal_error', details: null,
        message: 'An internal error occurred; nothing was recorded. Retrying is safe.',
      },
    }]);
    const client = new PartnerkitClient({ transport: injectTransport(t.app), token: ADMIN_TOKEN });
    await expect(client.demo.load(OPTIONS, { onProgress: () => {} })).rejects.toMatchObject({ code: 'internal_error', status: 500 });
  });

  test('SDK demo.load with onProgress over a listening server: each step as it arrives, then the result', async () => {
    const t = await buildTestApp();
    const url = await t.app.listen({ host: '127.0.0.1', port: 0 });
    const client = new PartnerkitClient({ baseUrl: url, token: ADMIN_TOKEN });
    const progress: DemoProgress[] = [];
    const result = await client.demo.load(OPTIONS, { onProgress: (p) => progress.push(p) });
    expectPhases(progress);
    expect(result).toMatchObject({ programId: 1, memberEmail: 'demo@partnerkit.local', counts: { clicks: OPTIONS.clicks } });
    // Without onProgress the SDK asks for the one JSON document.
    expect((await client.demo.load(OPTIONS)).counts).toEqual(result.counts);
  });
});
