import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { httpFetch } from '../../src/cli/http-fetch.js';
import { fetchTransport, NetworkError, type ApiRequest } from '../../src/sdk/transport.js';

type Seen = { method?: string; url?: string; headers: IncomingMessage['headers']; body: string };
const servers: Array<ReturnType<typeof createServer>> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((done) => s.close(done))));
});

/** A server on 127.0.0.1 that records each request and answers with the given status, body and content type. */
async function server(status: number, body: string, contentType = 'application/json') {
  const seen: Seen[] = [];
  const s = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: text });
      res.writeHead(status, { 'content-type': contentType, 'retry-after': '3' }).end(body);
    });
  });
  servers.push(s);
  await new Promise<void>((done) => s.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`, seen };
}

describe("the CLI's fetch over node:http (docs/architecture.md#requests-to-a-server)", () => {
  const request: ApiRequest = { method: 'POST', path: '/api/v1/track/sale?x=1', headers: { authorization: 'Bearer pk_test_1' }, body: { amount_cents: 4999, name: 'Zoë' } };

  test.each([
    ['a JSON answer', 409, '{"error":{"code":"duplicate_transaction"}}', 'application/json'],
    ['a body that is not JSON', 502, '<html>Bad gateway</html>', 'text/html'],
    ['an empty body', 204, '', 'application/json'],
  ])('%s: the transport answers as with the global fetch, and the server sees the same request', async (_name, status, body, type) => {
    const { url, seen } = await server(status, body, type);
    const viaHttp = await fetchTransport(url, httpFetch)(request);
    const viaFetch = await fetchTransport(url)(request);
    expect(viaHttp.status).toBe(status);
    expect(viaHttp.body).toEqual(viaFetch.body);
    expect(viaHttp.headers['retry-after']).toBe('3');
    expect(viaHttp.headers['content-type']).toBe(viaFetch.headers['content-type']);
    const [http, fetched] = seen;
    expect(http).toMatchObject({ method: 'POST', url: '/api/v1/track/sale?x=1', body: JSON.stringify(request.body) });
    expect(http.body).toBe(fetched.body);
    for (const header of ['authorization', 'content-type', 'content-length']) expect(http.headers[header], header).toBe(fetched.headers[header]);
  });

  test('a server that cannot be reached is a NetworkError (the SDK retries it)', async () => {
    const { url } = await server(200, '{}');
    await new Promise((done) => servers.pop()!.close(done));
    await expect(fetchTransport(url, httpFetch)({ method: 'GET', path: '/healthz' })).rejects.toBeInstanceOf(NetworkError);
  });
});
