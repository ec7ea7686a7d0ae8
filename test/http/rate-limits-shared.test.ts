import { describe, expect, test, vi } from 'vitest';
import { buildTestApp, freezeDate, rateLimitedBody, T0, type TestApp, type TestAppOptions } from '../helpers/app.js';
import { TEST_ENGINE } from '../helpers/engine.js';

/*
 * The limits of docs/api.md#rate-limits with two instances. On PostgreSQL two apps over one database,
 * each with a store of its own, are limited as one server (docs/store-engines.md#rate-limits-across-instances). On DuckDB,
 * which one process holds, the limits count in that process's memory: two apps over its store each
 * count their own, as before.
 */

const shared = TEST_ENGINE === 'postgres';
let databases = 0;

/** Two apps over one database: on PostgreSQL two stores on one schema, on DuckDB one store. */
async function twoInstances(options: TestAppOptions): Promise<[TestApp, TestApp]> {
  freezeDate();
  if (shared) {
    const path = `two-instances-${++databases}`;
    return [await buildTestApp({ ...options, path }), await buildTestApp({ ...options, path })];
  }
  const first = await buildTestApp(options);
  return [first, await buildTestApp({ ...options, store: first.store })];
}

/** A lead request that the key's limit counts (an empty body: 400 once past the limit check). */
const lead = (t: TestApp, apiKey: string) => t.post('/api/v1/track/lead', {}, apiKey);
const click = (t: TestApp, refCode: string) => t.post('/api/v1/track/click', { ref: refCode }, undefined, { 'user-agent': 'one-visitor' });
const statuses = (responses: Array<{ statusCode: number }>) => responses.map((r) => r.statusCode);

describe('rate limits with two instances', () => {
  test('per API key: requests split between the instances count as one, until the window ends', async () => {
    const [a, b] = await twoInstances({ rateLimit: { max: 4, windowSeconds: 60 } });
    const program = await a.program();
    const answers = [];
    for (const t of [a, a, a, b, b, a]) answers.push(await lead(t, program.apiKey));
    expect(statuses(answers)).toEqual(shared ? [400, 400, 400, 400, 429, 429] : [400, 400, 400, 400, 400, 400]);
    if (shared) {
      expect(answers[4].json()).toEqual(rateLimitedBody('Too many requests for this API key', 60));
      expect(answers[4].headers['retry-after']).toBe('60');
    }
    vi.setSystemTime(Date.parse(T0) + 45_000);
    const later = await lead(b, program.apiKey);
    expect(later.statusCode).toBe(shared ? 429 : 400);
    if (shared) expect(later.headers['retry-after']).toBe('15');
    vi.setSystemTime(Date.parse(T0) + 60_000);
    expect(statuses([await lead(b, program.apiKey), await lead(a, program.apiKey)])).toEqual([400, 400]);
  });

  test('per API key: concurrent requests on both instances, exactly the limit is let through', async () => {
    const [a, b] = await twoInstances({ rateLimit: { max: 4, windowSeconds: 60 } });
    const program = await a.program();
    const answers = await Promise.all(Array.from({ length: 12 }, (_, n) => lead(n % 2 === 0 ? a : b, program.apiKey)));
    expect(statuses(answers).filter((s) => s === 400)).toHaveLength(shared ? 4 : 8);
    expect(statuses(answers).filter((s) => s === 429)).toHaveLength(shared ? 8 : 4);
  });

  test('per client address: clicks and partner link visits through either instance share one counter', async () => {
    const [a, b] = await twoInstances({ clicks: { rateLimit: { max: 3, windowSeconds: 60 } } });
    const program = await a.program({ landingUrl: 'https://shop.example/' });
    const link = await b.app.inject({ method: 'GET', url: `/r/${program.refCode}`, headers: { 'user-agent': 'one-visitor' } });
    expect(link.statusCode).toBe(302);
    expect(statuses([await click(a, program.refCode), await click(b, program.refCode), await click(a, program.refCode)])).toEqual(
      shared ? [200, 200, 429] : [200, 200, 200],
    );
    if (shared) expect((await click(b, program.refCode)).json()).toEqual(rateLimitedBody('Too many requests from this address', 60));
  });

  test('unknown API keys: the failures of an address through either instance count as one', async () => {
    const [a, b] = await twoInstances({ authFailureLimit: { max: 2, windowSeconds: 60 } });
    const unknown = (t: TestApp, n: number) => lead(t, `pk_live_unknown_${n}`);
    const answers = [await unknown(a, 1), await unknown(b, 2), await unknown(a, 3), await unknown(b, 4)];
    expect(statuses(answers)).toEqual(shared ? [401, 401, 429, 429] : [401, 401, 401, 401]);
    if (shared) expect(answers[2].json()).toEqual(rateLimitedBody('Too many requests with an unknown API key from this address', 60));
  });
});
