/** How the client reaches the API: fetch over the network, or an in-process app (the CLI). */
export type ApiRequest = { method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; path: string; headers?: Record<string, string>; body?: unknown };
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
  return async ({ method, path, headers, body }) => {
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
    const text = await response.text();
    return { status: response.status, headers: Object.fromEntries(response.headers), body: responseBody(text, response.headers.get('content-type')) };
  };
}
