import { Flags } from '@oclif/core';

/** Where `serve` listens when started without --host and --port. */
export const SERVE_DEFAULTS = { host: '127.0.0.1', port: 3000 } as const;

/** How long a session lasts; the API takes at most a year (docs/behaviour.md §2.6, §15.3). */
export const ttlHoursFlag = Flags.integer({ description: 'hours until the token expires', default: 24, min: 1, max: 24 * 365 });

export const baseUrlFlag = Flags.string({
  description: `the address people open partnerkit's pages at (default: the server the command talks to, else http://${SERVE_DEFAULTS.host}:${SERVE_DEFAULTS.port})`,
  env: 'PARTNERKIT_BASE_URL',
});

/**
 * A magic link (docs/behaviour.md §15.9): the page on `base` with the token in the fragment, which
 * browsers never send to a server, so it stays out of request logs and Referer headers.
 */
function magicLink(base: string, page: 'dashboard' | 'portal', token: string): string {
  return `${base.replace(/\/+$/, '')}/${page}#token=${token}`;
}

/**
 * The sign-in link of a new session's token: on --base-url, else the server the command talks to,
 * else serve's default address, with a note to print saying where the link opens and the `serve`
 * command line that opens it (`serve`: as nextCommand writes it, with the command's --data-dir).
 */
export function signInLink(
  page: 'dashboard' | 'portal',
  token: string,
  baseUrl: string | undefined,
  server: string | undefined,
  serve: string,
): { url: string; note?: string } {
  const given = baseUrl ?? server;
  if (given !== undefined) return { url: magicLink(given, page, token) };
  const base = `http://${SERVE_DEFAULTS.host}:${SERVE_DEFAULTS.port}`;
  return {
    url: magicLink(base, page, token),
    note: `Sign-in links open once serve runs on this data dir at ${base}: ${serve}\nPass --base-url <its public address> for another address.`,
  };
}
