import { NDJSON } from '../api/media-types.js';

/** How the client reaches the API: fetch over the network, or an in-process app (the CLI). */
export type ApiRequest = {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** For an answer streamed as NDJSON: each line, parsed, as it arrives; the last is also the answer's body. */
  onLine?: (line: unknown) => void;
  /**
   * For a file (a data export): a successful answer's body is handed to `sink` as it arrives,
   * never held whole; the response's body is then null. An error answer is read as usual.
   */
  sink?: (body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, headers: Record<string, unknown>) => Promise<void>;
};
export type ApiResponse = { status: number; headers: Record<string, unknown>; body: unknown };
export type Transport = (request: ApiRequest) => Promise<ApiResponse>;

/** A failure to reach the server at all: safe to retry, nothing is known to have happened. */
export class NetworkError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'NetworkError';
  }
}

/**
 * A response body: a CSV export as its text; anything else parsed as JSON (the API's answers and
 * errors), or kept as text when it is not JSON (a proxy's error page).
 */
export function responseBody(text: string, contentType: unknown): unknown {
  if (typeof contentType === 'string' && contentType.startsWith('text/csv')) return text;
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function fetchTransport(baseUrl: string, fetchImpl: typeof fetch = fetch): Transport {
  const base = baseUrl.replace(/\/+$/, '');
  return async ({ method, path, headers, body, onLine, sink }) => {
    let response: Response;
    try {
      response = await fetchImpl(base + path, {
        method,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
    } catch (error) {
      throw new NetworkError(`Could not reach ${base}: ${(error as Error).message}`, { cause: error });
    }
    if (sink && response.status < 400 && response.body) {
      const responseHeaders = Object.fromEntries(response.headers);
      await sink(response.body as unknown as AsyncIterable<Uint8Array>, responseHeaders);
      return { status: response.status, headers: responseHeaders, body: null };
    }
    if (onLine && response.body && isNdjson(response.headers.get('content-type'))) {
      return { status: response.status, headers: Object.fromEntries(response.headers), body: await readNdjson(response.body, onLine) };
    }
    const text = await response.text();
    return { status: response.status, headers: Object.fromEntries(response.headers), body: responseBody(text, response.headers.get('content-type')) };
  };
}

export function isNdjson(contentType: unknown): boolean {
  return typeof contentType === 'string' && contentType.startsWith(NDJSON);
}

/** Reads an NDJSON body chunk by chunk, passing each line to `onLine` as it completes; answers the last line. */
export async function readNdjson(chunks: AsyncIterable<Uint8Array> | Iterable<Uint8Array>, onLine: (line: unknown) => void): Promise<unknown> {
  const decoder = new TextDecoder();
  let pending = '';
  let last: unknown = null;
  const take = (text: string) => {
    if (text.trim() === '') return;
    last = JSON.parse(text);
    onLine(last);
  };
  for await (const chunk of chunks) {
    const lines = (pending + decoder.decode(chunk, { stream: true })).split('\n');
    pending = lines.pop()!;
    lines.forEach(take);
  }
  take(pending + decoder.decode());
  return last;
}
