import { utc } from '@date-fns/utc';
import { addDays } from 'date-fns/addDays';
import { addHours } from 'date-fns/addHours';
import { addMinutes } from 'date-fns/addMinutes';
import type { ExchangedSession, Me, RevokedSessions, RevokeSessionsRequest, Session } from '../api/index.js';
import { SESSION_HOURS, SIGN_IN_CODE_MINUTES } from '../api/constants.js';
import { AppError } from '../errors.js';
import type { Sql } from '../store/db.js';
import * as members from '../store/members.js';
import * as partners from '../store/partners.js';
import { allPrograms } from '../store/programs.js';
import * as codes from '../store/sign-in-codes.js';
import type { Viewer } from './access.js';
import type { Deps } from './deps.js';
import { randomToken, sha256 } from './secrets.js';

/** Whose session: a workspace user's (the dashboard) or a partner's (the portal). */
export type Holder = { userId: number } | { partnerId: number };

/**
 * A stored session counts while its expiry is later than now, and never more than 30 days after it
 * was created, whatever expiry an older version gave it (docs/sessions.md#session-lifetime).
 */
const live = <T extends { created_at: Date; expires_at: Date }>(session: T | undefined, now: Date): T | undefined =>
  session && session.expires_at > now && addDays(session.created_at, SESSION_HOURS.max / 24, { in: utc }) > now ? session : undefined;

/** The user of a live dashboard session token, or undefined. */
export async function sessionUser({ store, clock }: Deps, token: string): Promise<number | undefined> {
  return live(await store.read((sql) => members.findSession(sql, sha256(token))), clock.now())?.user_id;
}

/** The partner of a live partner session token, or undefined. */
export async function sessionPartner({ store, clock }: Deps, token: string): Promise<number | undefined> {
  return live(await store.read((sql) => partners.findPartnerSession(sql, sha256(token))), clock.now())?.partner_id;
}

/** Stores a new session of `holder` ending at `expiresAt`, by its token's hash; answers the token, shown once. */
async function openSession(sql: Sql, holder: Holder, now: Date, expiresAt: Date): Promise<string> {
  // Each kind of session has a table and a token prefix of its own (docs/pages.md#session-api-choices).
  const token = randomToken('userId' in holder ? 'pks_' : 'pkp_', 32);
  const row = { token_hash: sha256(token), created_at: now, expires_at: expiresAt };
  if ('userId' in holder) await members.insertSession(sql, { ...row, user_id: holder.userId });
  else await partners.insertPartnerSession(sql, { ...row, partner_id: holder.partnerId });
  return token;
}

/**
 * What `session create` and `partner login` hand out (docs/sessions.md#sign-in-links-and-one-time-codes):
 * a session for scripts, ending `ttlHours` from now, and a one-time code for the sign-in link, good for
 * 15 minutes, that opens a session of its own ending at the same time.
 */
export async function issueSignIn(sql: Sql, holder: Holder, now: Date, ttlHours: number): Promise<Session> {
  const expiresAt = addHours(now, ttlHours, { in: utc });
  const token = await openSession(sql, holder, now, expiresAt);
  const { code, codeExpiresAt } = await issueSignInCode(sql, holder, now, expiresAt);
  return { token, expiresAt: expiresAt.toISOString(), signInCode: code, signInCodeExpiresAt: codeExpiresAt.toISOString() };
}

/** Stores a one-time code of `holder`, good for 15 minutes, opening a session that ends at `sessionExpiresAt`; answers the code, shown once. */
export async function issueSignInCode(sql: Sql, holder: Holder, now: Date, sessionExpiresAt: Date): Promise<{ code: string; codeExpiresAt: Date }> {
  const code = randomToken('pkc_', 32);
  const codeExpiresAt = addMinutes(now, SIGN_IN_CODE_MINUTES, { in: utc });
  await codes.deleteExpiredSignInCodes(sql, now);
  await codes.insertSignInCode(sql, {
    code_hash: sha256(code),
    user_id: 'userId' in holder ? holder.userId : null,
    partner_id: 'partnerId' in holder ? holder.partnerId : null,
    created_at: now,
    expires_at: codeExpiresAt,
    session_expires_at: sessionExpiresAt,
  });
  return { code, codeExpiresAt };
}

const invalidSignInCode = () =>
  new AppError(
    'invalid_sign_in_code',
    `This sign-in link has expired or has already been used: a link works once, within ${SIGN_IN_CODE_MINUTES} minutes. Ask for a new one.`,
  );

/**
 * POST /api/sessions/exchange (docs/sessions.md#sign-in-links-and-one-time-codes): the code is taken
 * out of the store and its session opened in one transaction, so two exchanges of one code open one
 * session; an unknown, used or expired code is 400 invalid_sign_in_code.
 */
export async function exchangeSignInCode({ store, clock }: Deps, code: string): Promise<ExchangedSession> {
  return store.transaction(async (sql) => {
    const now = clock.now();
    const found = await codes.takeSignInCode(sql, sha256(code));
    if (!found || found.expires_at <= now) throw invalidSignInCode();
    const holder: Holder = found.user_id !== null ? { userId: found.user_id } : { partnerId: found.partner_id! };
    return { token: await openSession(sql, holder, now, found.session_expires_at), expiresAt: found.session_expires_at.toISOString() };
  });
}

/** Ends every session of a user or partner and drops their unused sign-in codes; answers how many sessions ended. */
export async function endSessionsOf(sql: Sql, holder: Holder): Promise<number> {
  await codes.deleteSignInCodesOf(sql, holder);
  return 'userId' in holder ? members.deleteUserSessions(sql, holder.userId) : partners.deletePartnerSessions(sql, holder.partnerId);
}

/** POST /api/admin/sessions/revoke (docs/sessions.md#revoking-sessions): a user's by e-mail, or a partner's. */
export async function revokeSessions({ store }: Deps, who: RevokeSessionsRequest): Promise<RevokedSessions> {
  return store.transaction(async (sql) => {
    let holder: Holder;
    if (who.email !== undefined) {
      const user = await members.findUserByEmail(sql, who.email.toLowerCase());
      if (!user) throw new AppError('not_found', `No user with e-mail ${who.email.toLowerCase()}`);
      holder = { userId: user.id };
    } else {
      if (!(await partners.findPartner(sql, who.partnerId!))) throw new AppError('not_found', `Partner ${who.partnerId} not found`);
      holder = { partnerId: who.partnerId! };
    }
    return { revoked: await endSessionsOf(sql, holder) };
  });
}

/** The two kinds of session a sign-out ends: each table's lookup and deletion by token hash. */
const SESSION_KINDS: Array<{
  find: (sql: Sql, hash: string) => Promise<{ created_at: Date; expires_at: Date } | undefined>;
  remove: (sql: Sql, hash: string) => Promise<void>;
}> = [
  { find: members.findSession, remove: members.deleteSession },
  { find: partners.findPartnerSession, remove: partners.deletePartnerSession },
];

/**
 * DELETE /api/session (docs/pages.md#delete-apisession-sign-out): the live dashboard or partner session of the token
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

/** GET /api/me (docs/pages.md#get-apime): the session's user and its active programs; the admin token sees every program. */
export async function me({ store, clock }: Deps, viewer: Viewer): Promise<Me> {
  const now = clock.now().toISOString();
  return store.read(async (sql) => {
    if (viewer.kind === 'admin') {
      const programs = await allPrograms(sql);
      return { user: null, admin: true, programs: programs.map((p) => ({ id: p.id, name: p.name })), now };
    }
    const user = await members.findUser(sql, viewer.userId);
    return { user: { id: user!.id, email: user!.email }, admin: false, programs: await members.memberPrograms(sql, viewer.userId), now };
  });
}
