import { PartnerkitClient } from '../../sdk/client.js';
import { PartnerkitError } from '../../sdk/errors.js';
import { fetchTransport } from '../../sdk/transport.js';

/**
 * The pages call the API with the SDK the CLI uses (docs/pages.md#every-number-from-the-api): the same routes, the
 * same answers, no second implementation of a number. The session goes in the Authorization header.
 */
export const client = (token?: string) => new PartnerkitClient({ transport: fetchTransport(location.origin), token, retries: 0 });

/** A session that is missing, unknown or expired: the page goes back to its sign-in message. */
export const isSignedOut = (error: unknown) => error instanceof PartnerkitError && error.status === 401;

export const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));
