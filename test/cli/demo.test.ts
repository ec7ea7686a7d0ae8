import { describe, expect, test } from 'vitest';
import { cliEnv, runCli, runJson, runOnTerminal, startServe, tempDataDir } from '../helpers/cli.js';

// Runs against dist/: `npm run build` first. The demo's progress on a terminal (docs/cli.md#demo-progress),
// its sign-in links (docs/api.md#demo-data).

const LABELS = ['writing clicks', 'writing leads, sales and commissions', 'committing'];

describe('partnerkit demo progress', () => {
  test.skipIf(process.platform !== 'linux').each(['in-process', 'through a running server'])('on a terminal, %s: a bar labelled with each phase of the load, in order', async (where) => {
    const dataDir = tempDataDir();
    if (where !== 'in-process') await startServe(dataDir);
    const { code, output } = await runOnTerminal(['demo', '--days', '10', '--clicks', '200000'], cliEnv(dataDir));
    expect(code).toBe(0);
    const seen = LABELS.map((label) => output.indexOf(`${label} `));
    expect(seen.every((at) => at >= 0), output.slice(-2000)).toBe(true);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    expect(output).toMatch(/writing clicks +[░█]+ \d+% \| \d+\/200000 clicks \| \d+s/);
    expect(output).toContain('Loaded Demo program (seed 42)');
  }, 120_000);

  test('--json through a running server: the result document only, no progress on stdout', async () => {
    const dataDir = tempDataDir();
    await startServe(dataDir);
    const result = await runJson(['demo', '--days', '3', '--clicks', '500'], cliEnv(dataDir));
    expect(result).toMatchObject({ programId: 1, counts: { clicks: 500 } });
  }, 60_000);
});

describe('partnerkit demo sign-in links', () => {
  const NOW = '2026-03-10T15:00:00.000Z';
  const TOKEN = (prefix: string) => new RegExp(`^${prefix}_[\\w-]{43}$`);

  test("in-process: the dashboard link of the member's session and the portal link of the first partner, on serve's default address with a note", async () => {
    const dataDir = tempDataDir();
    const demo = await runCli(['demo', '--days', '3', '--clicks', '500'], cliEnv(dataDir, { PARTNERKIT_NOW: NOW, TZ: 'UTC' }));
    expect(demo.code, demo.stderr).toBe(0);
    const lines = demo.stdout.split('\n');
    const session = /^session token   (pks_\S+) /.exec(lines.find((line) => line.startsWith('session token'))!)![1];
    const code = (name: string) => {
      const line = lines.find((l) => l.startsWith(name))!;
      return line.slice(line.indexOf('#code=') + '#code='.length);
    };
    const [dashboardCode, portalCode] = [code('dashboard'), code('partner portal')];
    expect(dashboardCode).toMatch(TOKEN('pkc'));
    expect(portalCode).toMatch(TOKEN('pkc'));
    const from = lines.indexOf(`session token   ${session} (expires Mar 11 15:00)`);
    expect(lines.slice(from, from + 9)).toEqual([
      `session token   ${session} (expires Mar 11 15:00)`,
      `dashboard       http://127.0.0.1:3000/dashboard#code=${dashboardCode}`,
      'partner         1',
      `partner portal  http://127.0.0.1:3000/portal#code=${portalCode}`,
      'links work      once, until Mar 10 15:15',
      '',
      `Sign-in links open once serve runs on this data dir at http://127.0.0.1:3000: npx partnerkit serve --data-dir ${dataDir}`,
      'Pass --base-url <its public address> for another address.',
      '',
    ]);
    expect(lines[from + 9]).toBe('Try:');

    const withBase = await runJson(['demo', '--days', '3', '--clicks', '500', '--base-url', 'https://partners.example.com/'], cliEnv(tempDataDir(), { PARTNERKIT_NOW: NOW }));
    expect(withBase).toMatchObject({
      partnerId: 1, partnerSessionExpiresAt: '2026-03-11T15:00:00.000Z', signInCodesExpireAt: '2026-03-10T15:15:00.000Z',
      dashboardUrl: `https://partners.example.com/dashboard#code=${withBase.signInCode}`,
      portalUrl: `https://partners.example.com/portal#code=${withBase.partnerSignInCode}`,
    });
  }, 60_000);

  test("through a running server: the links are on the server's address, no note, and their codes open sessions of /api/me and the first partner's /api/portal/me", async () => {
    const dataDir = tempDataDir();
    const server = await startServe(dataDir, [], { PARTNERKIT_NOW: NOW });
    const demo = await runCli(['demo', '--days', '3', '--clicks', '500'], cliEnv(dataDir, { PARTNERKIT_NOW: NOW, TZ: 'UTC' }));
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).not.toContain('Sign-in links open once');
    const link = (name: string) => new URL(new RegExp(`^${name} +(\\S+)$`, 'm').exec(demo.stdout)![1]);
    const [dashboard, portal] = [link('dashboard'), link('partner portal')];
    expect(`${dashboard.origin}${dashboard.pathname}`).toBe(`${server.url}/dashboard`);
    expect(`${portal.origin}${portal.pathname}`).toBe(`${server.url}/portal`);
    const get = async (path: string, url: URL) => {
      const exchange = await fetch(`${server.url}/api/sessions/exchange`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: url.hash.slice('#code='.length) }),
      });
      const { token } = (await exchange.json()) as { token: string };
      return (await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}` } })).json();
    };
    expect(await get('/api/me', dashboard)).toMatchObject({ user: { email: 'demo@partnerkit.local' }, programs: [{ id: 1 }] });
    expect(await get('/api/portal/me', portal)).toMatchObject({
      partner: { id: 1, name: 'Ada 1', email: 'partner1@demo-1.example' }, programs: [{ programId: 1, status: 'active' }],
    });
  }, 60_000);
});
