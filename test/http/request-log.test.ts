import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, buildTestApp } from '../helpers/app.js';
import { writerOf } from '../helpers/engine.js';
import { saleFields } from '../helpers/factories.js';
import { rawRequest } from '../helpers/raw-http.js';
import { signStripePayload } from '../../src/cli/stripe-fixtures.js';
import { fixture } from '../helpers/stripe.js';

/**
 * The request log (docs/tracking.md#request-log): one JSON line per request with method, route, status,
 * duration and request id; a 5xx also logs its cause; no credential, signature or body ever appears.
 */
type Line = Record<string, any>;

describe('request log', () => {
  test('a server under a few requests, one failing in the store: one line each, the failure with its cause, no secret or body', async () => {
    let output = '';
    const t = await buildTestApp({ log: { level: 'info', stream: { write: (line) => (output += line) } } });
    const program = await t.program();
    const { clickId } = await t.lead(program, 'cust_1');
    await t.admin('POST', `/programs/${program.id}/members`, { email: 'owner@example.com' });
    const { token: sessionToken } = await t.admin('POST', '/sessions', { email: 'owner@example.com' });
    // The store fails at the sale insert of one transaction, as a full disk would.
    const writer = await writerOf(t.store);
    const append = writer.append.bind(writer);
    writer.append = async (table, columns, rows) => {
      if (table === 'sale_events' && rows.some((row) => (row as { transaction_id?: string }).transaction_id === 'in_BODY_MARKER_fail')) {
        throw new Error('IO Error: simulated failure of the disk');
      }
      return append(table, columns, rows);
    };
    const url = await t.app.listen({ host: '127.0.0.1', port: 0 });
    output = '';

    const webhookPayload = JSON.stringify({ ...fixture('customer-created'), id: 'evt_BODY_MARKER' });
    const signature = signStripePayload(webhookPayload, program.webhookSecret, Math.floor(t.clock.now().getTime() / 1000));
    const json = (body: unknown, token?: string) => ({
      method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });
    const requests: Array<[string, RequestInit, number]> = [
      ['/healthz', {}, 200],
      ['/api/v1/track/sale', json(saleFields({ transaction_id: 'in_BODY_MARKER_ok', customer_key: 'cust_1' }), program.apiKey), 200],
      ['/api/v1/track/sale', json(saleFields({ transaction_id: 'in_BODY_MARKER_fail', customer_key: 'cust_1' }), program.apiKey), 500],
      ['/api/v1/track/lead', json({ customer_key: 'BODY_MARKER', click_id: clickId }, program.testApiKey), 200],
      ['/api/v1/track/sale', json({ transaction_id: 'in_BODY_MARKER_x' }, 'pk_live_BODY_MARKER_unknown_key'), 401],
      [`/api/v1/webhooks/stripe/${program.id}`, { method: 'POST', body: webhookPayload, headers: { 'content-type': 'application/json', 'stripe-signature': signature } }, 200],
      [`/api/tracking/performance/${program.id}?period=30d`, { headers: { authorization: `Bearer ${sessionToken}` } }, 200],
      [`/api/admin/programs/${program.id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }, 200],
      ['/nowhere', {}, 404],
    ];
    for (const [path, init, status] of requests) {
      const response = await fetch(`${url}${path}`, init);
      expect(response.status, `${path}: ${await response.text()}`).toBe(status);
    }
    // A URL the router refuses before any route: logged like the rest.
    expect((await rawRequest(Number(new URL(url).port), 'GET /api/admin/programs/%E0%A4%A HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n')).status).toBe(400);
    await t.app.close();

    const lines = output.trim().split('\n').map((line) => JSON.parse(line) as Line);
    const requestLines = lines.filter((line) => line.msg === 'request');
    expect(requestLines.map(({ method, route, status }) => [method, route, status])).toEqual([
      ['GET', '/healthz', 200],
      ['POST', '/api/v1/track/sale', 200],
      ['POST', '/api/v1/track/sale', 500],
      ['POST', '/api/v1/track/lead', 200],
      ['POST', '/api/v1/track/sale', 401],
      ['POST', '/api/v1/webhooks/stripe/:programId', 200],
      ['GET', '/api/tracking/performance/:programId', 200],
      ['GET', '/api/admin/programs/:programId', 200],
      ['GET', null, 404],
      ['GET', null, 400],
    ]);
    for (const line of requestLines) {
      expect(Object.keys(line).sort()).toEqual(['durationMs', 'hostname', 'level', 'method', 'msg', 'pid', 'requestId', 'route', 'status', 'time']);
      expect(line).toMatchObject({ level: 'info', requestId: expect.stringMatching(/^req-[0-9a-z]+$/), durationMs: expect.any(Number) });
      expect(line.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(new Set(requestLines.map((line) => line.requestId)).size).toBe(requestLines.length);

    // The 5xx: its cause, with the same request id as its request line.
    const failures = lines.filter((line) => line.level === 'error');
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ msg: 'request failed', requestId: requestLines[2].requestId, err: { type: 'Error', message: 'IO Error: simulated failure of the disk' } });
    expect(failures[0].err.stack).toMatch(/^Error: IO Error: simulated failure of the disk\n\s+at /);
    expect(lines).toHaveLength(requestLines.length + 1);

    for (const secret of [program.apiKey, program.testApiKey, ADMIN_TOKEN, sessionToken, program.webhookSecret, signature, signature.split('v1=')[1], 'BODY_MARKER', 'cust_1', 'period=30d']) {
      expect(output, `the log shows ${secret}`).not.toContain(secret);
    }
  });

  test('webhook endpoint secrets and URL passwords never reach the log: add, rotate, list, ping', async () => {
    let output = '';
    const t = await buildTestApp({ log: { level: 'info', stream: { write: (line) => (output += line) } } });
    const program = await t.program();
    output = '';
    const call = async (method: 'GET' | 'POST', url: string, payload?: object) => {
      const response = await t.app.inject({ method, url: `/api${url}`, payload, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(response.statusCode, response.body).toBe(200);
      return response.json();
    };
    const added = await call('POST', `/programs/${program.id}/webhook-endpoints`, { url: 'https://hooks:PASSWORD_MARKER@example.com/in' });
    const rotated = await call('POST', `/webhook-endpoints/${added.id}/rotate-secret`);
    expect(await call('GET', `/programs/${program.id}/webhook-endpoints`)).toHaveLength(1);
    expect((await call('POST', `/webhook-endpoints/${added.id}/test`)).eventId).toMatch(/^evt_/);
    await t.app.close();

    expect(output.trim().split('\n').map((line) => JSON.parse(line).msg)).toEqual(['request', 'request', 'request', 'request']);
    for (const secret of [added.secret, rotated.secret, added.secret.slice('whsec_'.length), 'PASSWORD_MARKER']) {
      expect(output, `the log shows ${secret}`).not.toContain(secret);
    }
  });

  test('below the level nothing is written: at warn, a 200 and a 404 leave no line', async () => {
    let output = '';
    const quiet = await buildTestApp({ log: { level: 'warn', stream: { write: (line) => (output += line) } } });
    expect((await quiet.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    expect((await quiet.app.inject({ method: 'GET', url: '/nowhere' })).statusCode).toBe(404);
    expect(output).toBe('');
  });
});
