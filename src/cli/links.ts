import { trackingScriptPath } from '../api/constants.js';

/**
 * Links as partners and pages use them: on the server the command talks to (its --url: behind a
 * proxy or a public domain, pass the public address). In-process there is no server address, and
 * a path is printed with a note instead.
 */
export function absolute(server: string | undefined, path: string): string {
  return server === undefined ? path : `${server.replace(/\/+$/, '')}${path}`;
}

export const NO_SERVER_NOTE = 'Links are paths on your partnerkit server: run this with --url <its public address> (or beside `serve`) for whole links.';

/** The one tag a merchant's pages load. */
export function scriptTag(server: string | undefined, programId: number): string {
  return `<script async src="${absolute(server, trackingScriptPath(programId))}"></script>`;
}
