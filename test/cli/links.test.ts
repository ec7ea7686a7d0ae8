import { describe, expect, test } from 'vitest';
import { cliEnv, runCli, runJson, startServe, tempDataDir } from '../helpers/cli.js';

// Runs against dist/: `npm run build` first.
// Each test starts several CLI processes: a few seconds each on a busy machine.
const PROCESSES = 90_000;
const NOTE = 'Links are paths on your partnerkit server: run this with --url <its public address> (or beside `serve`) for whole links.';

async function provision(env: NodeJS.ProcessEnv, landingUrl?: string) {
  await runJson(['program', 'create', '--name', 'Acme', ...(landingUrl ? ['--landing-url', landingUrl] : [])], env);
  await runJson(['partner', 'create', '--name', 'Jane', '--email', 'jane@example.com'], env);
}

describe('partner links from the CLI', () => {
  test("beside serve: partner enroll and partner links print whole links on the server's address; the link redirects there", async () => {
    const dataDir = tempDataDir();
    const server = await startServe(dataDir);
    const env = cliEnv(dataDir);
    await provision(env, 'https://shop.example/welcome');
    const enrolled = await runCli(['partner', 'enroll', '--program', '1', '--partner', '1'], env);
    expect(enrolled.code, enrolled.stderr).toBe(0);
    const refCode = /refCode\s+(\w+)/.exec(enrolled.stdout)![1];
    expect(enrolled.stdout).toContain(`link       ${server.url}/r/${refCode}`);
    expect(enrolled.stdout).not.toContain(NOTE);

    const links = await runCli(['partner', 'links', '--program', '1', '--partner', '1'], env);
    expect(links.stdout.trimEnd().split('\n')).toEqual([
      `refCode     ${refCode}`,
      'status      active',
      `link        ${server.url}/r/${refCode}`,
      'landingUrl  https://shop.example/welcome',
      `viaUrl      https://shop.example/welcome?via=${refCode}`,
      `script      <script async src="${server.url}/pk.js?program=1"></script>`,
    ]);
    expect(await runJson(['partner', 'links', '--program', '1', '--partner', '1'], env)).toEqual({
      programId: 1, partnerId: 1, refCode, status: 'active', linkPath: `/r/${refCode}`, link: `${server.url}/r/${refCode}`,
      landingUrl: 'https://shop.example/welcome', viaUrl: `https://shop.example/welcome?via=${refCode}`,
    });

    const followed = await fetch(`${server.url}/r/${refCode}`, { redirect: 'manual' });
    expect(followed.status).toBe(302);
    expect(followed.headers.get('location')).toMatch(/^https:\/\/shop\.example\/welcome\?partner_click_id=ck_1_[\w-]{22}$/);
    const script = await fetch(`${server.url}/pk.js?program=1`);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  }, PROCESSES);

  test('in-process: the link is a path, with a note; an unknown enrollment is not_found', async () => {
    const env = cliEnv(tempDataDir());
    await provision(env);
    const enrolled = await runCli(['partner', 'enroll', '--program', '1', '--partner', '1'], env);
    const refCode = /refCode\s+(\w+)/.exec(enrolled.stdout)![1];
    expect(enrolled.stdout).toContain(`link       /r/${refCode}\n\n${NOTE}`);
    const links = await runCli(['partner', 'links', '--program', '1', '--partner', '1'], env);
    expect(links.stdout).toContain('landingUrl  —');
    expect(links.stdout).toContain('script      <script async src="/pk.js?program=1"></script>');
    const missing = await runCli(['partner', 'links', '--program', '1', '--partner', '7', '--json'], env);
    expect(missing.code).toBe(1);
    expect(JSON.parse(missing.stdout).error).toMatchObject({ code: 'not_found', message: 'Partner 7 is not enrolled in program 1' });
  }, PROCESSES);

  test('program create --landing-url is validated by the API', async () => {
    const env = cliEnv(tempDataDir());
    const refused = await runCli(['program', 'create', '--name', 'Acme', '--landing-url', 'javascript:alert(1)', '--json'], env);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout).error).toMatchObject({ code: 'invalid_request', details: { fields: [expect.objectContaining({ field: 'landingUrl' })] } });
  });
});
