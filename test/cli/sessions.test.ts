import { describe, expect, test } from 'vitest';
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

describe('sign-in links from the CLI', () => {
  test("in-process: partner login and session create print links on serve's default address with a note; --base-url replaces it", async () => {
    const dataDir = tempDataDir();
    const env = cliEnv(dataDir, { PARTNERKIT_NOW: NOW });
    await provision(env);

    const login = await runJson(['partner', 'login', '--partner', '1', '--ttl-hours', '48'], env);
    expect(login).toEqual({
      partnerId: 1, token: expect.stringMatching(/^pkp_[\w-]{43}$/), expiresAt: '2026-03-12T15:00:00.000Z',
      portalUrl: `http://127.0.0.1:3000/portal#token=${login.token}`,
    });
    const printed = await runCli(['partner', 'login', '--partner', '1'], env);
    expect(printed.code, printed.stderr).toBe(0);
    const token = /token\s+(pkp_\S+)/.exec(printed.stdout)![1];
    expect(printed.stdout).toBe(
      `partnerId  1\ntoken      ${token}\nexpiresAt  2026-03-11T15:00:00.000Z\nportalUrl  http://127.0.0.1:3000/portal#token=${token}\n\n${note(dataDir)}\n`,
    );

    const session = await runJson(['session', 'create', '--email', 'ann@example.com', '--base-url', 'https://partners.example.com/'], env);
    expect(session).toEqual({
      token: expect.stringMatching(/^pks_[\w-]{43}$/), expiresAt: '2026-03-11T15:00:00.000Z',
      dashboardUrl: `https://partners.example.com/dashboard#token=${session.token}`,
    });
    const withBase = await runCli(['partner', 'login', '--partner', '1', '--base-url', 'https://partners.example.com'], env);
    expect(withBase.stdout).toMatch(/portalUrl  https:\/\/partners\.example\.com\/portal#token=pkp_[\w-]{43}\n$/);

    const unknown = await runCli(['partner', 'login', '--partner', '7', '--json'], env);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout).error).toMatchObject({ code: 'not_found', message: 'Partner 7 not found' });
    const tooLong = await runCli(['partner', 'login', '--partner', '1', '--ttl-hours', '8761'], env);
    expect(tooLong.code).toBe(2);
  }, PROCESSES);

  test("beside serve: the links are on the server's address and their tokens open /api/portal/me and /api/me", async () => {
    const dataDir = tempDataDir();
    const server = await startServe(dataDir, [], { PARTNERKIT_NOW: NOW });
    const env = cliEnv(dataDir, { PARTNERKIT_NOW: NOW });
    await provision(env);

    const login = await runCli(['partner', 'login', '--partner', '1'], env);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).not.toContain('Sign-in links open once');
    const portalUrl = /portalUrl\s+(\S+)/.exec(login.stdout)![1];
    expect(portalUrl).toMatch(new RegExp(`^${server.url}/portal#token=pkp_[\\w-]{43}$`));
    const partnerToken = new URL(portalUrl).hash.slice('#token='.length);
    const portal = await fetch(`${server.url}/api/portal/me`, { headers: { authorization: `Bearer ${partnerToken}` } });
    expect((await portal.json()).partner).toEqual({ id: 1, name: 'Jane', email: 'jane@example.com' });

    const { dashboardUrl, token } = await runJson(['session', 'create', '--email', 'ann@example.com'], env);
    expect(dashboardUrl).toBe(`${server.url}/dashboard#token=${token}`);
    const me = await fetch(`${server.url}/api/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(await me.json()).toEqual({ user: { id: 1, email: 'ann@example.com' }, admin: false, programs: [{ id: 1, name: 'Acme' }] });
  }, PROCESSES);
});
