import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

/** A request a receiver got: its headers and raw body. */
export type Received = { headers: IncomingHttpHeaders; body: string; json: any };

/** How a receiver answers a request: a status (and body), or `hang` (never answers), or `reset` (drops the connection). */
export type Answer = number | { status: number; body: string } | 'hang' | 'reset';

/**
 * A webhook receiver: a real HTTP server on 127.0.0.1 on a port of its own, closed when the test
 * finishes. `answer` decides each answer (204 by default); every request is kept.
 */
export async function receiver(answer: (request: Received, n: number) => Answer = () => 204) {
  const received: Received[] = [];
  const hanging: ServerResponse[] = [];
  let waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const request = { headers: req.headers, body, json: JSON.parse(body) };
      received.push(request);
      for (const wake of waiters) wake();
      waiters = [];
      const what = answer(request, received.length);
      if (what === 'hang') return void hanging.push(res);
      if (what === 'reset') return void req.socket.destroy();
      const { status, body: text } = typeof what === 'number' ? { status: what, body: '' } : what;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    /** The bodies received, parsed. */
    events: () => received.map((r) => r.json),
    /** Resolves once `n` requests arrived. */
    async waitFor(n: number): Promise<void> {
      while (received.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
    },
  };
}
