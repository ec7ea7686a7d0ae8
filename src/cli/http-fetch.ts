import { request } from 'node:http';

/**
 * The part of `fetch` the SDK's `fetchTransport` uses — method, headers and a string body; status,
 * headers and `text()` — over `node:http`, for the CLI's requests to a server. Node 20 loads its
 * fetch implementation (undici) on the first call, about 80 ms of a command that only asks a running
 * server (docs/architecture.md §15). `node:https` is loaded only for an https URL.
 */
export const httpFetch = (async (url: string, init: RequestInit = {}) => {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? (await import('node:https')).request : request;
  return new Promise((resolve, reject) => {
    const outgoing = send(target, { method: init.method, headers: init.headers as Record<string, string> }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', reject);
      response.once('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode!, headers: Object.entries(response.headers), text: async () => text });
      });
    });
    outgoing.once('error', reject);
    outgoing.end(init.body as string | undefined);
  });
}) as unknown as typeof fetch;
