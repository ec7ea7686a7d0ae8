import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, type TestAppOptions } from '../helpers/app.js';
import { rawRequest } from '../helpers/raw-http.js';
import { expectErrorEnvelope } from '../faults/support.js';

/**
 * Errors the HTTP layer raises before or instead of a route (docs/api.md#errors-raised-by-the-http-layer) are in the
 * platform envelope too, over a real socket: Node's parser, Fastify's router and body parsers.
 */
async function listening(options: TestAppOptions = {}) {
  const t = await buildTestApp(options);
  const program = await t.program();
  const url = await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, program, port: Number(new URL(url).port) };
}

const platform = (status: number, name: string, code: string, message: string, details: unknown = null) => ({
  data: null,
  error: { status, name, message, details, code },
});

const invalid = (field: string, message: string) =>
  platform(400, 'ValidationError', 'invalid_request', `Invalid request: ${field}: ${message}`, { fields: [{ field, message }] });

function post(path: string, contentType: string, body: string, headers: Record<string, string> = {}) {
  const lines = Object.entries({ host: 'localhost', 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)), connection: 'close', ...headers });
  return `POST ${path} HTTP/1.1\r\n${lines.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${body}`;
}

describe('errors of the HTTP layer, over a real socket', () => {
  test('headers over 16 KiB: 431 headers_too_large, written by hand since Node refused the request before Fastify saw it', async () => {
    const { port } = await listening();
    const response = await rawRequest(port, `GET /healthz HTTP/1.1\r\nhost: localhost\r\nx-padding: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(response.status).toBe(431);
    expect(response.headers).toMatchObject({ 'content-type': 'application/json; charset=utf-8', connection: 'close' });
    expect(JSON.parse(response.body)).toEqual(platform(431, 'RequestHeaderFieldsTooLargeError', 'headers_too_large', 'The request headers are larger than 16 KiB'));
    expectErrorEnvelope(431, response.body);
  });

  test.each([
    ['a method with a space', 'GE T /healthz HTTP/1.1\r\nhost: localhost\r\n\r\n'],
    ['an unknown HTTP version', 'GET /healthz HTTP/7.1\r\nhost: localhost\r\n\r\n'],
    ['a control character in the path', 'GET /heal\u0001thz HTTP/1.1\r\nhost: localhost\r\n\r\n'],
    ['no request line at all', '\r\n\r\n\r\nhello\r\n\r\n'],
    ['a header without a colon', 'GET /healthz HTTP/1.1\r\nhost localhost\r\n\r\n'],
    ['both Content-Length and chunked', 'POST /api/v1/track/click HTTP/1.1\r\nhost: localhost\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n'],
  ])('a malformed request (%s): 400 invalid_request naming the request', async (_name, bytes) => {
    const { port } = await listening();
    const response = await rawRequest(port, bytes);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual(invalid('request', 'not a well-formed HTTP/1.1 request'));
  });

  test('bad percent-encoding in the path: 400 invalid_request naming the url', async () => {
    const { port } = await listening();
    const response = await rawRequest(port, 'GET /api/admin/programs/%E0%A4%A HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n');
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual(invalid('url', "'/api/admin/programs/%E0%A4%A' is not a valid url component"));
  });

  test('a path parameter over 100 characters: 400 invalid_request naming the url', async () => {
    const { port } = await listening();
    const id = '1'.repeat(101);
    const response = await rawRequest(port, `GET /api/admin/programs/${id} HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n`);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual(invalid('url', `'/api/admin/programs/${id}' is exceeding the max param length`));
  });

  test('a body over 64 KiB: 413 payload_too_large, from the Content-Length before the body is read, and from a chunked body as it arrives', async () => {
    const { t, program, port } = await listening();
    const declared = await rawRequest(port, post('/api/v1/track/sale', 'application/json', '{', { authorization: `Bearer ${program.apiKey}`, 'content-length': '70000' }));
    const tooLarge = platform(413, 'PayloadTooLargeError', 'payload_too_large', 'The request body is larger than this endpoint accepts');
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toEqual(tooLarge);
    const chunk = `{"ref":"${'x'.repeat(70_000)}"}`;
    const chunked = await rawRequest(
      port,
      `POST /api/v1/track/click HTTP/1.1\r\nhost: localhost\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
    );
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toEqual(tooLarge);
    expect(await t.count('sale_events')).toBe(0);
    expect(await t.count('clicks')).toBe(0);
  });

  test.each([
    ['unparsable JSON', 'application/json', '{"ref": nope}', 'body', "Body is not valid JSON but content-type is set to 'application/json'"],
    ['an empty JSON body', 'application/json', '', 'body', "Body cannot be empty when content-type is set to 'application/json'"],
    ['a forbidden prototype key', 'application/json', '{"__proto__": {"x": 1}}', 'body', "Body is not valid JSON but content-type is set to 'application/json'"],
    ['an unsupported content type', 'application/xml', '<ref>x</ref>', 'body', 'Unsupported Media Type'],
  ])('%s: 400 invalid_request naming the body', async (_name, contentType, body, field, message) => {
    const { t, port } = await listening();
    const response = await rawRequest(port, post('/api/v1/track/click', contentType, body));
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual(invalid(field, message));
    expect(await t.count('clicks')).toBe(0);
  });

  test('the webhook reads raw bytes of JSON only: another content type is 400 invalid_request too', async () => {
    const { program, port } = await listening();
    const response = await rawRequest(port, post(`/api/v1/webhooks/stripe/${program.id}`, 'text/xml', '<event/>'));
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual(invalid('body', 'Unsupported Media Type'));
  });

  test('an admin route answers the same envelopes (bad JSON with the admin token)', async () => {
    const { port } = await listening();
    const response = await rawRequest(port, post('/api/admin/programs', 'application/json', '{', { authorization: `Bearer ${ADMIN_TOKEN}` }));
    expect(response.status).toBe(400);
    expectErrorEnvelope(400, response.body);
  });
});

describe('request deadlines (docs/tracking.md#connections-and-timeouts), with short timeouts', () => {
  const connections = { headersMs: 300, requestMs: 600, keepAliveMs: 5_000 };
  const timedOut = platform(408, 'RequestTimeoutError', 'request_timeout', 'The request did not arrive in time; the connection is closed');

  test('the second request on a keep-alive connection, its headers trickling: 408 after the first was answered 200', async () => {
    const { port } = await listening({ connections });
    const started = performance.now();
    const response = await rawRequest(port, 'GET /healthz HTTP/1.1\r\nhost: localhost\r\n\r\nGET /healthz HTTP/1.1\r\nho');
    // Two answers on the connection: the first request's, then the second's.
    expect(response.status).toBe(200);
    const second = response.body.slice(response.body.indexOf('HTTP/1.1 '));
    expect(second.split('\r\n')[0]).toBe('HTTP/1.1 408 Request Timeout');
    expect(JSON.parse(second.split('\r\n\r\n')[1])).toEqual(timedOut);
    expect(performance.now() - started).toBeGreaterThanOrEqual(connections.headersMs);
  });

  test('a request answered before its body arrived (401: no API key) and then stalled: closed at the deadline with no second answer', async () => {
    const { port } = await listening({ connections });
    const started = performance.now();
    const response = await rawRequest(port, post('/api/v1/track/sale', 'application/json', '{"transaction_id":', { 'content-length': '100', connection: 'keep-alive' }));
    expect(performance.now() - started).toBeGreaterThanOrEqual(connections.requestMs);
    expect(response.status).toBe(401);
    expect(response.body).not.toContain('HTTP/1.1');
    expect(JSON.parse(response.body).error.code).toBe('unauthorized');
  });
});
