import { describe, expect, test, vi } from 'vitest';
import { cachedApiKey, creatingApiKeys, readApiKey } from '../../src/domain/api-keys.js';
import { sha256 } from '../../src/domain/secrets.js';
import { insertApiKey } from '../../src/store/api-keys.js';
import { buildTestApp, freezeDate, rateLimitedBody, T0, type TestApp } from '../helpers/app.js';
import { API_KEY_MESSAGES, unauthorized } from '../helpers/route-auth.js';

/**
 * Unknown API keys (docs/api.md#rate-limits): looked up in the store once, then refused from memory,
 * and counted per client address against the limit of failed authentications.
 */
const unknownKey = (n: number) => `pk_live_${String(n).padStart(32, 'u')}`;

function track(t: TestApp, path: 'sale' | 'click', key: string, ip = '10.0.0.1') {
  const payload = path === 'sale' ? { transaction_id: 'in_1', amount_cents: 100, customer_key: 'cust_1' } : { ref: 'x' };
  return t.app.inject({ method: 'POST', url: `/api/v1/track/${path}`, payload, remoteAddress: ip, headers: { authorization: `Bearer ${key}` } });
}

const refused = unauthorized(API_KEY_MESSAGES.refused);

describe('unknown API keys', () => {
  test('an unknown key is looked up once: later requests with it are refused without reading the store', async () => {
    const t = await buildTestApp();
    const reads = vi.spyOn(t.store, 'read');
    for (const path of ['sale', 'sale', 'sale', 'click'] as const) {
      const response = await track(t, path, unknownKey(1));
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual(refused);
    }
    expect(reads).toHaveBeenCalledTimes(1);
  });

  test('creating a key or a program forgets the unknown tokens: they are looked up again', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const reads = vi.spyOn(t.store, 'read');
    await track(t, 'sale', unknownKey(1));
    const created = await t.admin('POST', `/programs/${program.id}/keys`, {});
    await track(t, 'sale', unknownKey(1));
    expect(reads).toHaveBeenCalledTimes(2);
    await t.program();
    await track(t, 'sale', unknownKey(1));
    expect(reads).toHaveBeenCalledTimes(3);
    // The created key itself: looked up once, then known.
    await t.lead(program);
    expect((await track(t, 'sale', created.apiKey)).statusCode).toBe(200);
  });

  test('a key whose token was looked up and found unknown before it was created is found once created', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const token = unknownKey(7);
    expect(await readApiKey(t.store, sha256(token))).toBeUndefined();
    expect(cachedApiKey(t.store, sha256(token))).toBeNull();
    const key = { id: 99, program_id: program.id, mode: 'live' as const, key_hash: sha256(token), prefix: token.slice(0, 12), status: 'active' as const, created_at: t.clock.now() };
    await creatingApiKeys(t.store, () => t.store.transaction((sql) => insertApiKey(sql, key)));
    expect(cachedApiKey(t.store, sha256(token))).toBeUndefined();
    expect(await readApiKey(t.store, sha256(token))).toMatchObject({ id: 99, program_id: program.id, status: 'active' });
  });

  test('30 unknown keys a minute per address by default, then 429 without reading the store; known keys and other addresses go on', async () => {
    freezeDate();
    const t = await buildTestApp({ authFailureLimit: { max: 30, windowSeconds: 60 } });
    const program = await t.program();
    await t.lead(program);
    await t.sale(program, { transaction_id: 'in_known' }); // the program's key, now known
    const reads = vi.spyOn(t.store, 'read');
    for (let n = 0; n < 30; n++) expect((await track(t, 'sale', unknownKey(n))).statusCode).toBe(401);
    expect(reads).toHaveBeenCalledTimes(30);
    const refusal = rateLimitedBody('Too many requests with an unknown API key from this address', 60);
    for (const [path, key] of [['sale', unknownKey(30)], ['sale', unknownKey(0)], ['click', unknownKey(31)]] as const) {
      const limited = await track(t, path, key);
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toEqual(refusal);
      expect(limited.headers['retry-after']).toBe('60');
      expect(limited.headers.connection).toBe('close');
    }
    expect(reads).toHaveBeenCalledTimes(30);

    expect((await track(t, 'sale', unknownKey(30), '10.0.0.2')).json()).toEqual(refused);
    expect((await track(t, 'sale', program.apiKey)).statusCode).toBe(200);
    vi.setSystemTime(Date.parse(T0) + 60_000);
    expect((await track(t, 'sale', unknownKey(32))).json()).toEqual(refused);
  });
});
