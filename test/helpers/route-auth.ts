import type { FastifyInstance } from 'fastify';
import type { PartnerSession } from '../../src/api/index.js';
import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, type ProgramFixture, type TestApp } from './app.js';

/**
 * The authorization cases every authenticated route runs (after unkey's runCommonRouteTests): no,
 * malformed and unknown credentials, a retired API key, a credential of the wrong kind and an expired
 * session are refused with 401 in their exact envelope before validation, and store nothing; the
 * credentials the route takes get through.
 */

/**
 * What a route takes: a program API key, the instance admin token, a dashboard session (or the
 * admin token), a partner session (the portal), or either kind of session (sign-out);
 * `optionalApiKey` is public, or the program API key when a credential is sent (the click endpoint).
 */
export type Guard = 'apiKey' | 'optionalApiKey' | 'admin' | 'session' | 'partner' | 'signOut';

export type PreparedRequest = { url: string; payload?: object };

export type AuthenticatedRoute = {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** As the app registers it, e.g. /api/admin/programs/:programId. */
  route: string;
  guard: Guard;
  /** A request the route answers `accepted` with a credential it takes; makes the rows it needs. */
  prepareRequest(t: TestApp, program: ProgramFixture): Promise<PreparedRequest>;
  accepted: number;
  /** A request that fails validation: without credentials it is still 401 (authorization comes first). */
  invalidRequest?: (program: ProgramFixture) => PreparedRequest;
  /** Portal routes: the status a session of a partner not enrolled in the program gets (404: as for an unknown program). */
  otherPartner?: number;
};

export const API_KEY_MESSAGES = {
  missing: 'Missing or malformed Authorization header; send Authorization: Bearer <API key>',
  refused: 'The API key matches no active program',
};

const MESSAGES: Record<Guard, { missing: string; refused: string }> = {
  apiKey: API_KEY_MESSAGES,
  optionalApiKey: API_KEY_MESSAGES,
  admin: {
    missing: 'The admin API needs the instance admin token (see <data-dir>/admin-token)',
    refused: 'The admin API needs the instance admin token (see <data-dir>/admin-token)',
  },
  session: {
    missing: 'Missing or malformed Authorization header; send Authorization: Bearer <session token>',
    refused: 'No valid dashboard session: the token is unknown or expired (program API keys are not accepted here)',
  },
  partner: {
    missing: 'Missing or malformed Authorization header; send Authorization: Bearer <partner session token>',
    refused: 'No valid partner session: the token is unknown or expired (only partner sessions are accepted here)',
  },
  signOut: {
    missing: 'Missing or malformed Authorization header; send Authorization: Bearer <session token>',
    refused: 'No session to sign out: the token is unknown or expired (the admin token and API keys are not sessions)',
  },
};

/** A 401 unauthorized in the platform envelope. */
export const unauthorized = (message: string) => ({ data: null, error: { status: 401, name: 'UnauthorizedError', message, details: null, code: 'unauthorized' } });

/** A retired key is told how to rotate, in the typed envelope. */
const ROTATION_REQUIRED = {
  error: {
    code: 'api_key_rotation_required',
    message: 'This API key has been retired',
    hint: 'Create a new key with `partnerkit key create --program <id>` (or in the program settings) and replace the retired one in your backend.',
    docs_url: 'https://github.com/partnerkit/partnerkit#api-keys',
  },
};

type Verdict = 'missing' | 'refused' | 'retired' | 'accepted';
type Credential = (t: TestApp, program: ProgramFixture) => Promise<string | undefined>;

const bearer = (token: string) => `Bearer ${token}`;
const fixed = (header: string | undefined): Credential => async () => header;

async function memberSession(t: TestApp, program: ProgramFixture, ttlHours = 24): Promise<{ token: string; expiresAt: string }> {
  await t.admin('POST', `/programs/${program.id}/members`, { email: 'member@example.com' });
  return t.admin('POST', '/sessions', { email: 'member@example.com', ttlHours });
}

/** A portal session of the program's partner (or of another partner). */
export async function partnerSession(t: TestApp, partnerId: number, ttlHours = 24): Promise<PartnerSession> {
  return t.admin('POST', `/partners/${partnerId}/sessions`, { ttlHours });
}

const missing = { apiKey: 'missing', optionalApiKey: 'missing', admin: 'missing', session: 'missing', partner: 'missing', signOut: 'missing' } as const;
const refused = { apiKey: 'refused', optionalApiKey: 'refused', admin: 'refused', session: 'refused', partner: 'refused', signOut: 'refused' } as const;

const CASES: Array<[string, Credential, Record<Guard, Verdict>]> = [
  ['no Authorization header', fixed(undefined), { ...missing, optionalApiKey: 'accepted' }],
  ['a malformed header (another scheme)', fixed('Token abc'), missing],
  ['a malformed header (Bearer without a token)', fixed('Bearer'), missing],
  ['a malformed header (two tokens)', fixed('Bearer pk_live_a pk_live_b'), missing],
  ['an unknown API key', fixed(bearer(`pk_live_${'u'.repeat(32)}`)), refused],
  ['an unknown admin token', fixed(bearer('pka_unknown')), refused],
  ['an unknown session token', fixed(bearer('pks_unknown')), refused],
  ['an unknown partner session token', fixed(bearer('pkp_unknown')), refused],
  [
    'a retired API key',
    async (t, program) => {
      const key = await t.admin('POST', `/programs/${program.id}/keys`, {});
      await t.admin('POST', `/programs/${program.id}/keys/${key.id}/retire`);
      return bearer(key.apiKey);
    },
    { ...refused, apiKey: 'retired', optionalApiKey: 'retired' },
  ],
  ['the live API key', async (_t, program) => bearer(program.apiKey), { ...refused, apiKey: 'accepted', optionalApiKey: 'accepted' }],
  ['the test API key', async (_t, program) => bearer(program.testApiKey), { ...refused, apiKey: 'accepted', optionalApiKey: 'accepted' }],
  ['the admin token', fixed(bearer(ADMIN_TOKEN)), { ...refused, admin: 'accepted', session: 'accepted' }],
  [
    "a session token of the program's active member",
    async (t, program) => bearer((await memberSession(t, program)).token),
    { ...refused, session: 'accepted', signOut: 'accepted' },
  ],
  [
    "a partner session token of the program's partner",
    async (t, program) => bearer((await partnerSession(t, program.partnerId)).token),
    { ...refused, partner: 'accepted', signOut: 'accepted' },
  ],
  [
    'a partner session token at its expiry',
    async (t, program) => {
      const { token, expiresAt } = await partnerSession(t, program.partnerId, 1);
      t.clock.set(expiresAt);
      return bearer(token);
    },
    refused,
  ],
  [
    'a session token at its expiry',
    async (t, program) => {
      const { token, expiresAt } = await memberSession(t, program, 1);
      t.clock.set(expiresAt);
      return bearer(token);
    },
    refused,
  ],
];

/**
 * Row counts of every table of data: a refused request must change none. The rate limits' counters
 * on PostgreSQL are not data: a refusal counts against its address (docs/api.md#rate-limits).
 */
async function rowCounts(t: TestApp): Promise<Record<string, number>> {
  return t.store.read(async (sql) => {
    const tables = await sql.all<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'rate_counters' ORDER BY table_name",
    );
    const rows = await sql.all<{ name: string; n: number }>(tables.map(({ name }) => `SELECT '${name}' AS name, count(*) AS n FROM "${name}"`).join(' UNION ALL '));
    return Object.fromEntries(rows.map((r) => [r.name, r.n]));
  });
}

/** Sends the request; whatever the answer, an API answer holds a session's data and is never cached (docs/pages.md#serving-caching-and-the-session). */
async function send(t: TestApp, method: string, request: PreparedRequest, authorization: string | undefined) {
  const response = await t.app.inject({ method: method as AuthenticatedRoute['method'], url: request.url, payload: request.payload, headers: authorization === undefined ? {} : { authorization } });
  expect(response.headers['cache-control'], `${method} ${request.url} ${response.statusCode}`).toBe('no-store');
  return response;
}

async function expectRefused(t: TestApp, method: string, request: PreparedRequest, authorization: string | undefined, body: object) {
  const before = await rowCounts(t);
  const response = await send(t, method, request, authorization);
  expect(response.statusCode, response.body).toBe(401);
  expect(response.json()).toEqual(body);
  expect(await rowCounts(t)).toEqual(before);
}

export function runCommonRouteTests(route: AuthenticatedRoute): void {
  const { method, guard } = route;
  describe(`${method} ${route.route} (${guard})`, () => {
    const verdicts = CASES.map(([name, credential, verdict]) => [name, credential, verdict[guard]] as const);

    test.each(verdicts.filter(([, , verdict]) => verdict !== 'accepted'))('%s: 401, nothing stored', async (_name, credential, verdict) => {
      const t = await buildTestApp();
      const program = await t.program();
      const request = await route.prepareRequest(t, program);
      const body = verdict === 'retired' ? ROTATION_REQUIRED : unauthorized(MESSAGES[guard][verdict as 'missing' | 'refused']);
      await expectRefused(t, method, request, await credential(t, program), body);
    });

    test.each(verdicts.filter(([, , verdict]) => verdict === 'accepted'))(`%s: ${route.accepted}`, async (_name, credential) => {
      const t = await buildTestApp();
      const program = await t.program();
      const request = await route.prepareRequest(t, program);
      const response = await send(t, method, request, await credential(t, program));
      expect(response.statusCode, response.body).toBe(route.accepted);
    });

    if (guard === 'partner') {
      const status = route.otherPartner ?? 404;
      test(`a session of a partner enrolled only in another program: ${status}, nothing stored`, async () => {
        const t = await buildTestApp();
        const program = await t.program();
        const request = await route.prepareRequest(t, program);
        const other = await t.program({ name: 'Other program' });
        const { token } = await partnerSession(t, other.partnerId);
        const before = await rowCounts(t);
        const response = await send(t, method, request, bearer(token));
        expect(response.statusCode, response.body).toBe(status);
        if (status === 404) {
          expect(response.json()).toEqual({
            data: null, error: { status: 404, name: 'NotFoundError', message: `Program ${program.id} not found`, details: null, code: 'not_found' },
          });
        }
        expect(await rowCounts(t)).toEqual(before);
      });
    }

    if (route.invalidRequest) {
      const invalid = route.invalidRequest;
      test('an invalid request without credentials: 401, authorization comes before validation', async () => {
        const t = await buildTestApp();
        const program = await t.program();
        await expectRefused(t, method, invalid(program), undefined, unauthorized(MESSAGES[guard].missing));
      });
    }
  });
}

/**
 * Every route the app serves as `METHOD /path`, read from Fastify's route tree (printRoutes without
 * common prefixes: a node's key is its path after its parent's). HEAD routes are left out: Fastify
 * adds one beside each GET, with the GET's hooks.
 */
export function servedRoutes(app: FastifyInstance): string[] {
  const path: string[] = [];
  const routes: string[] = [];
  const methodsOf = (text: string, at: string) => {
    const match = /^ \(([A-Z, ]+)\)/.exec(text);
    if (!match) throw new Error(`unexpected route tree line: ${text}`);
    for (const m of match[1].split(', ')) if (m !== 'HEAD') routes.push(`${m} ${at}`);
  };
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n').filter(Boolean)) {
    let depth = 0;
    while (line.startsWith('│   ', depth * 4) || line.startsWith('    ', depth * 4)) depth++;
    const rest = line.slice(depth * 4);
    if (rest.startsWith('├── ') || rest.startsWith('└── ')) {
      const [, key, methods] = /^(\S+)(.*)$/.exec(rest.slice(4))!;
      path.length = depth;
      path.push(key);
      if (methods) methodsOf(methods, path.join(''));
    } else {
      // More routes of the node above, with other constraints: printed on lines of their own.
      methodsOf(rest, path.slice(0, depth).join(''));
    }
  }
  return routes.sort();
}
