import { Flags } from '@oclif/core';
import { SESSION_HOURS, signInUrl } from '../api/constants.js';
import type { Session } from '../api/index.js';

/** Where `serve` listens when started without --host and --port. */
export const SERVE_DEFAULTS = { host: '127.0.0.1', port: 3000 } as const;

/** How long a session lasts: at most 30 days (docs/sessions.md#session-lifetime). */
export const ttlHoursFlag = Flags.integer({
  description: `hours until the session (the token's, and the one the link opens) ends, at most ${SESSION_HOURS.max} (30 days)`,
  default: SESSION_HOURS.default,
  min: 1,
  max: SESSION_HOURS.max,
});

export const baseUrlFlag = Flags.string({
  description: `the address people open partnerkit's pages at (default: the server the command talks to, else http://${SERVE_DEFAULTS.host}:${SERVE_DEFAULTS.port})`,
  env: 'PARTNERKIT_BASE_URL',
});

/**
 * A sign-in link (docs/sessions.md#sign-in-links-and-one-time-codes): the page on `base` with the
 * one-time code in the fragment, which browsers never send to a server, so it stays out of request
 * logs and Referer headers; the page exchanges it for a session once.
 */

/**
/**
 * The sign-in link of a new session's code: on --base-url, else the server the command talks to,
 * else serve's default address, with a note to print saying where the link opens and the `serve`
 * command line that opens it (`serve`: as nextCommand writes it, with the command's --data-dir).
 */
export function signInLink(
  page: 'dashboard' | 'portal',
  code: string,
  baseUrl: string | undefined,
  server: string | undefined,
  serve: string,
): { url: string; note?: string } {
  const given = baseUrl ?? server;
  if (given !== undefined) return { url: signInUrl(given, page, code) };
  const base = `http://${SERVE_DEFAULTS.host}:${SERVE_DEFAULTS.port}`;
  return {
    url: signInUrl(base, page, code),
    note: `Sign-in links open once serve runs on this data dir at ${base}: ${serve}\nPass --base-url <its public address> for another address.`,
  };
}

const PAGE_URL_FIELD = { dashboard: 'dashboardUrl', portal: 'portalUrl' } as const;
type PageUrlField<P extends 'dashboard' | 'portal'> = (typeof PAGE_URL_FIELD)[P];

/**
 * What `session create` and `partner login` print (docs/pages.md#sign-in-links-from-the-cli): the session for scripts
 * (its token and expiry) and, instead of the code, the sign-in link and when the link stops working.
 */
export function signInOutput<S extends Session, P extends 'dashboard' | 'portal'>(
  page: P,
  session: S,
  baseUrl: string | undefined,
  server: string | undefined,
  serve: string,
): { result: Omit<S, 'signInCode' | 'signInCodeExpiresAt'> & Record<PageUrlField<P>, string> & { linkExpiresAt: string }; note?: string } {
  const { signInCode, signInCodeExpiresAt, ...rest } = session;
  const { url, note } = signInLink(page, signInCode, baseUrl, server, serve);
  const link = { [PAGE_URL_FIELD[page]]: url } as Record<PageUrlField<P>, string>;
  return { result: { ...rest, ...link, linkExpiresAt: signInCodeExpiresAt }, note };
}
