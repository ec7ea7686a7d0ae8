import type { Me } from '../api/index.js';
import { AppError } from '../errors.js';
import type { Sql } from '../store/db.js';
import * as members from '../store/members.js';
import * as partners from '../store/partners.js';
import { allPrograms } from '../store/programs.js';
import type { Viewer } from './access.js';
import type { Deps } from './deps.js';
import { sha256 } from './secrets.js';

/** A stored session counts while its expiry is later than now (docs/behaviour.md §2.6, §15.3). */
const live = <T extends { expires_at: Date }>(session: T | undefined, now: Date): T | undefined =>
  session && session.expires_at > now ? session : undefined;

/** The user of a live dashboard session token, or undefined. */
export async function sessionUser({ store, clock }: Deps, token: string): Promise<number | undefined> {
  return live(await store.read((sql) => members.findSession(sql, sha256(token))), clock.now())?.user_id;
}

/** The partner of a live partner session token, or undefined. */
export async function sessionPartner({ store, clock }: Deps, token: string): Promise<number | undefined> {
  return live(await store.read((sql) => partners.findPartnerSession(sql, sha256(token))), clock.now())?.partner_id;
}

/** The two kinds of session a sign-out ends: each table's lookup and deletion by token hash. */
const SESSION_KINDS: Array<{ find: (sql: Sql, hash: string) => Promise<{ expires_at: Date } | undefined>; remove: (sql: Sql, hash: string) => Promise<void> }> = [
  { find: members.findSession, remove: members.deleteSession },
  { find: partners.findPartnerSession, remove: partners.deletePartnerSession },
];

/**
 * DELETE /api/session (docs/behaviour.md §15.2): the live dashboard or partner session of the token
 * is deleted, so the token is refused from then on; any other token, the admin token included, is
 * 401 and nothing changes.
 */
export async function endSession({ store, clock }: Deps, token: string): Promise<void> {
  const hash = sha256(token);
  await store.transaction(async (sql) => {
    for (const kind of SESSION_KINDS) {
      if (live(await kind.find(sql, hash), clock.now())) return kind.remove(sql, hash);
    }
    throw new AppError('unauthorized', 'No session to sign out: the token is unknown or expired (the admin token and API keys are not sessions)');
  });
}

/** GET /api/me (docs/behaviour.md §15.1): the session's user and its active programs; the admin token sees every program. */
export async function me({ store }: Deps, viewer: Viewer): Promise<Me> {
  return store.read(async (sql) => {
    if (viewer.kind === 'admin') {
      const programs = await allPrograms(sql);
      return { user: null, admin: true, programs: programs.map((p) => ({ id: p.id, name: p.name })) };
    }
    const user = await members.findUser(sql, viewer.userId);
    return { user: { id: user!.id, email: user!.email }, admin: false, programs: await members.memberPrograms(sql, viewer.userId) };
  });
}
