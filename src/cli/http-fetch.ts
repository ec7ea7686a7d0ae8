import { request } from 'node:http';

/**
 * The part of `fetch` the SDK's `fetchTransport` uses — method, headers and a string body; status,
 * headers, the streamed body and `text()` — over `node:http`, for the CLI's requests to a server. Node 20 loads its
 * fetch implementation (undici) on the first call, about 80 ms of a command that only asks a running
 * server (docs/architecture.md#command-start-up). `node:https` is loaded only for an https URL.
 */
export const httpFetch = (async (url: string, init: RequestInit = {}) => {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? (await import('node:https')).request : request;
  return new Promise((resolve, reject) => {
    const outgoing = send(target, { method: init.method, headers: init.headers as Record<string, string> }, (response) => {
      const headers = new Map(Object.entries(response.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]));
      resolve({
        status: response.statusCode!,
        // Headers as fetch's are read: get() by any case, and iterable as [name, value] entries.
        headers: { get: (name: string) => headers.get(name.toLowerCase()) ?? null, [Symbol.iterator]: () => headers.entries() },
        // The body as it arrives, for a streamed (NDJSON) answer; text() reads it whole.
        body: response,
        text: async () => {
          const chunks: Buffer[] = [];
          for await (const chunk of response) chunks.push(chunk as Buffer);
          return Buffer.concat(chunks).toString('utf8');
        },
      });
    });
    outgoing.once('error', reject);
    outgoing.end(init.body as string | undefined);
  });
}) as unknown as typeof fetch;
