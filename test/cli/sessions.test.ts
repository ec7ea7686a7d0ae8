import { describe, expect, test } from 'vitest';
import type { PortalMe } from '../../src/api/index.js';
import { cliEnv, runCli, runJson, startServe, tempDataDir } from '../helpers/cli.js';

// Runs against dist/: `npm run build` first. Each test starts several CLI processes.
const PROCESSES = 90_000;
const NOW = '2026-03-10T15:00:00.000Z';
/** The note under a sign-in link when no server runs: where it opens, and the serve command line for the data dir. */
const note = (dataDir: string) =>
  `Sign-in links open once serve runs on this data dir at http://127.0.0.1:3000: npx partnerkit serve --data-dir ${dataDir}\nPass --base-url <its public address> for another address.`;

async function provision(env: NodeJS.ProcessEnv) {
  await runJson(['program', 'create', '--name', 'Acme'], env);
  await runJson(['partner', 'create', '--name', 'Jane', '--email', 'jane@example.com'], env);
  await runJson(['member', 'add', '--program', '1', '--email', 'ann@example.com'], env);
}

/** A sign-in link's code for its session token, as the pages exchange it. */
async function exchange(server: string, code: string): Promise<string> {
  const response = await fetch(`${server}/api/sessions/exchange`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

describe('sign-in links from the CLI', () => {
  test("in-process: partner login and session create print links on serve's default address with a note; --base-url replaces it", async () => {
    const dataDir = tempDataDir();
    const env = cliEnv(dataDir, { PARTNERKIT_NOW: NOW, TZ: 'UTC' });
    await provision(env);

    const login = await runJson(['partner', 'login', '--partner', '1', '--ttl-hours', '48'], env);
    expect(login).toEqual({
      partnerId: 1, token: expect.stringMatching(/^pkp_[\w-]{43}$/), expiresAt: '2026-03-12T15:00:00.000Z',
      portalUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:3000\/portal#code=pkc_[\w-]{43}$/), linkExpiresAt: '2026-03-10T15:15:00.000Z',
    });
    const printed = await runCli(['partner', 'login', '--partner', '1'], env);
    expect(printed.code, printed.stderr).toBe(0);
    const token = /token\s+(pkp_\S+)/.exec(printed.stdout)![1];
    const code = /#code=(pkc_\S+)/.exec(printed.stdout)![1];
    expect(printed.stdout).toBe(
      `partnerId      1\ntoken          ${token}\nexpiresAt      Mar 11 15:00\nportalUrl      http://127.0.0.1:3000/portal#code=${code}\n` +
        `linkExpiresAt  Mar 10 15:15\n\n${note(dataDir)}\n`,
    );

    const session = await runJson(['session', 'create', '--email', 'ann@example.com', '--base-url', 'https://partners.example.com/'], env);
    expect(session).toEqual({
      token: expect.stringMatching(/^pks_[\w-]{43}$/), expiresAt: '2026-03-11T15:00:00.000Z',
      dashboardUrl: expect.stringMatching(/^https:\/\/partners\.example\.com\/dashboard#code=pkc_[\w-]{43}$/), linkExpiresAt: '2026-03-10T15:15:00.000Z',
    });
    const withBase = await runCli(['partner', 'login', '--partner', '1', '--base-url', 'https://partners.example.com'], env);
    expect(withBase.stdout).toMatch(/portalUrl      https:\/\/partners\.example\.com\/portal#code=pkc_[\w-]{43}\n/);

    const unknown = await runCli(['partner', 'login', '--partner', '7', '--json'], env);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).error).toMatchObject({ code: 'not_found', message: 'Partner 7 not found' });
    // Sessions last 30 days at most.
    expect((await runJson(['session', 'create', '--email', 'ann@example.com', '--ttl-hours', '720'], env)).expiresAt).toBe('2026-04-09T15:00:00.000Z');
    const tooLong = await runCli(['partner', 'login', '--partner', '1', '--ttl-hours', '721', '--json'], env);
    expect(tooLong.code).toBe(2);
    expect(JSON.parse(tooLong.stdout).error).toMatchObject({
      code: 'invalid_usage', message: 'Parsing --ttl-hours: Expected an integer less than or equal to 720 but received: 721',
    });
  }, PROCESSES);

  test("beside serve: the links are on the server's address and their codes open /api/portal/me and /api/me; session revoke and partner deactivation end sessions", async () => {
    const dataDir = tempDataDir();
    const server = await startServe(dataDir, [], { PARTNERKIT_NOW: NOW });
    const env = cliEnv(dataDir, { PARTNERKIT_NOW: NOW });
    await provision(env);

    const login = await runCli(['partner', 'login', '--partner', '1'], env);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).not.toContain('Sign-in links open once');
    const portalUrl = /portalUrl\s+(\S+)/.exec(login.stdout)![1];
    expect(portalUrl).toMatch(new RegExp(`^${server.url}/portal#code=pkc_[\\w-]{43}$`));
    const partnerToken = await exchange(server.url, new URL(portalUrl).hash.slice('#code='.length));
    const portal = await fetch(`${server.url}/api/portal/me`, { headers: { authorization: `Bearer ${partnerToken}` } });
    expect(((await portal.json()) as PortalMe).partner).toEqual({ id: 1, name: 'Jane', email: 'jane@example.com' });

    const { dashboardUrl, token } = await runJson(['session', 'create', '--email', 'ann@example.com'], env);
    expect(dashboardUrl).toMatch(new RegExp(`^${server.url}/dashboard#code=pkc_[\\w-]{43}$`));
    const status = async (path: string, bearer: string) => (await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${bearer}` } })).status;
    const fromLink = await exchange(server.url, new URL(dashboardUrl).hash.slice('#code='.length));
    for (const bearer of [token, fromLink]) {
      const me = await fetch(`${server.url}/api/me`, { headers: { authorization: `Bearer ${bearer}` } });
      expect(await me.json()).toEqual({ user: { id: 1, email: 'ann@example.com' }, admin: false, programs: [{ id: 1, name: 'Acme' }], now: NOW });
    }

    // session revoke ends them: by e-mail, then by partner.
    expect(await runJson(['session', 'revoke', '--email', 'ann@example.com'], env)).toEqual({ revoked: 2 });
    expect(await status('/api/me', token)).toBe(401);
    expect(await status('/api/me', fromLink)).toBe(401);
    expect(await runJson(['session', 'revoke', '--partner', '1'], env)).toEqual({ revoked: 2 });
    expect(await status('/api/portal/me', partnerToken)).toBe(401);
    const both = await runCli(['session', 'revoke', '--email', 'ann@example.com', '--partner', '1'], env);
    expect(both.code).toBe(2);

    // partner update --status inactive ends the partner's sessions and refuses new ones until reactivated.
    const again = (await runJson(['partner', 'login', '--partner', '1'], env)).token;
    expect(await runJson(['partner', 'update', '--partner', '1', '--status', 'inactive'], env)).toMatchObject({ id: 1, status: 'inactive' });
    expect(await status('/api/portal/me', again)).toBe(401);
    const refused = await runCli(['partner', 'login', '--partner', '1', '--json'], env);
    expect(JSON.parse(refused.stdout).error).toMatchObject({
      code: 'conflict', message: 'Partner 1 is inactive and cannot sign in; reactivate them with partner update --status active',
    });
    expect(await runJson(['partner', 'update', '--partner', '1', '--status', 'active'], env)).toMatchObject({ id: 1, status: 'active' });
    expect(await status('/api/portal/me', (await runJson(['partner', 'login', '--partner', '1'], env)).token)).toBe(200);
  }, PROCESSES);
});
