import { PartnerkitClient } from '../../sdk/client.js';
import { PartnerkitError } from '../../sdk/errors.js';
import { fetchTransport, type ApiRequest } from '../../sdk/transport.js';

/**
 * The pages call the API with the SDK the CLI uses (docs/behaviour.md §16.4): the same routes, the
 * same answers, no second implementation of a number. The session goes in the Authorization header.
 */
export type Api = {
  client: PartnerkitClient;
  /** A route the SDK has no method for yet, answered as the SDK answers: the body, or PartnerkitError. */
  call<T>(method: ApiRequest['method'], path: string): Promise<T>;
};

export function api(token: string): Api {
  const transport = fetchTransport(location.origin);
  return {
    client: new PartnerkitClient({ transport, token, retries: 0 }),
    async call<T>(method: ApiRequest['method'], path: string) {
      const response = await transport({ method, path, headers: { authorization: `Bearer ${token}` } });
      if (response.status >= 400) throw PartnerkitError.fromResponse(response.status, response.body);
      return response.body as T;
    },
  };
}

/** A session that is missing, unknown or expired: the page goes back to its sign-in message. */
export const isSignedOut = (error: unknown) => error instanceof PartnerkitError && error.status === 401;

export const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
