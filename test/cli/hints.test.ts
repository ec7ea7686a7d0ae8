import { execFile } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { BIN, cliEnv, runCli, startServe, tempDataDir, until, type CliResult } from '../helpers/cli.js';

/** The environment of a user who gave --data-dir on the command line only. */
function envWithoutDataDir(): NodeJS.ProcessEnv {
  const env = cliEnv('unused');
  delete env.PARTNERKIT_DATA_DIR;
  return env;
}

/** Pastes a printed command line into a shell in `cwd`, with `npx partnerkit` standing for the built CLI. */
function paste(line: string, cwd: string): Promise<CliResult> {
  const command = line.replace('npx partnerkit', `'${process.execPath}' '${BIN}'`);
  return new Promise((done) => {
    execFile('sh', ['-c', command], { cwd, env: envWithoutDataDir(), timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

const CLI_TIMEOUT = 120_000;

describe('next-step hints reach the same data dir and server when pasted', () => {
  test('demo --data-dir prints serve and report commands (one with the session token) with that data dir, which work from another directory', async () => {
    const dir = `${tempDataDir()}/shop data`;
    const elsewhere = tempDataDir();
    const demo = await runCli(['demo', '--data-dir', dir, '--days', '7', '--clicks', '2000'], envWithoutDataDir(), elsewhere);
    expect(demo.code).toBe(0);
    // The sign-in links' note names serve on the same data dir too.
    expect(demo.stdout).toContain(`Sign-in links open once serve runs on this data dir at http://127.0.0.1:3000: npx partnerkit serve --data-dir '${dir}'\n`);
    const hints = demo.stdout.slice(demo.stdout.indexOf('Try:')).trim().split('\n').slice(1).map((line) => line.trim());
    expect(hints).toEqual([
      `npx partnerkit report performance 1 --data-dir '${dir}'`,
      `npx partnerkit report performance 1 --period 90d --data-dir '${dir}'`,
      expect.stringMatching(new RegExp(`^PARTNERKIT_SESSION_TOKEN=pks_\\S+ npx partnerkit report performance 1 --period 30d --csv --data-dir '${dir}'$`)),
    ]);
    for (const hint of hints) {
      const result = await paste(hint, elsewhere);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
    }
    expect((await paste(hints[2], elsewhere)).stdout.split('\n')[0]).toMatch(/^date,/);
  }, CLI_TIMEOUT);

  test('serve --data-dir suggests a command with the same --data-dir, which reaches that server', async () => {
    const dir = tempDataDir();
    const server = await startServe(dir, ['--data-dir', dir]);
    await until(() => server.stderr().includes('Create one in another terminal'));
    const hint = server.stderr().split('\n').find((line) => line.includes('program create'))!.trim();
    expect(hint).toBe(`npx partnerkit program create --name 'My program' --landing-url https://example.com/ --data-dir ${dir}`);
    const created = await paste(`${hint} --json`, tempDataDir());
    expect(created.code).toBe(0);
    // The landing URL is in the hint so the partner links of the program it makes redirect.
    expect(JSON.parse(created.stdout)).toMatchObject({ id: 1, name: 'My program', landingUrl: 'https://example.com/' });
    expect(server.stdout()).toContain('/api/admin/programs');
  }, CLI_TIMEOUT);
});
