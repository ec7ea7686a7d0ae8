import { spawn } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BIN, serve, summarize, tempDir, type Summary } from './lib.js';

/** A command line to time, and what it must not exceed (ms; null: shown, no target). */
export type CliCase = { name: string; command: string[]; cwd?: string; targetMs: number | null };
export type CliFigures = { baseline: Summary; cases: Array<CliCase & { ms: Summary }> };

/** Wall time of a whole process, spawn to exit, output discarded; a failing command fails the bench. */
function timeProcess(command: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<number> {
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(command[0], command.slice(1), { env, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', fail);
    child.once('exit', (code) => (code === 0 ? done(performance.now() - started) : fail(new Error(`${command.join(' ')} exited ${code}: ${stderr}`))));
  });
}

/**
 * A merchant's project with partnerkit installed, for `npx partnerkit`: its node_modules/.bin names
 * this checkout's bin/run.js. npm is kept offline, so npx finds the local bin or fails.
 */
function merchantProject(path: string): string {
  mkdirSync(join(path, 'node_modules/.bin'), { recursive: true });
  writeFileSync(join(path, 'package.json'), JSON.stringify({ name: 'shop', private: true, dependencies: { partnerkit: '*' } }));
  symlinkSync(resolve(BIN, '../..'), join(path, 'node_modules/partnerkit'));
  symlinkSync('../partnerkit/bin/run.js', join(path, 'node_modules/.bin/partnerkit'));
  return path;
}

/**
 * Command latency as users see it (docs/architecture.md §13): whole `node bin/run.js …` processes,
 * with a server (`--url`) and opening the data dir, `--help`, and through npx, each beside
 * `node -e 0`. Rounds interleave the commands so the machine's noise falls on all of them alike.
 */
export async function benchCli(rounds = 7): Promise<CliFigures> {
  const served = tempDir('cli-served');
  const local = tempDir('cli-local');
  const project = tempDir('cli-project');
  const base: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', npm_config_offline: 'true', npm_config_update_notifier: 'false' };
  delete base.PARTNERKIT_URL;
  const setup = async (dataDir: string) => {
    const env = { ...base, PARTNERKIT_DATA_DIR: dataDir };
    await timeProcess([process.execPath, BIN, 'demo', '--days', '30', '--clicks', '2000'], env);
    return env;
  };
  const localEnv = await setup(local.path);
  const servedEnv = await setup(served.path);
  const server = await serve(served.path);
  try {
    const partnerkit = (...args: string[]) => [process.execPath, BIN, ...args];
    const cases: Array<CliCase & { env: NodeJS.ProcessEnv }> = [
      { name: 'partnerkit --help', command: partnerkit('--help'), targetMs: 500, env: localEnv },
      { name: 'program list --url (server running)', command: partnerkit('program', 'list', '--url', server.url), targetMs: 500, env: servedEnv },
      { name: 'report performance 1 --url (server running)', command: partnerkit('report', 'performance', '1', '--url', server.url), targetMs: 500, env: servedEnv },
      { name: 'program list (opens the data dir)', command: partnerkit('program', 'list'), targetMs: 1000, env: localEnv },
      { name: 'report performance 1 (opens the data dir)', command: partnerkit('report', 'performance', '1'), targetMs: 1000, env: localEnv },
      { name: 'npx partnerkit --help', command: ['npx', 'partnerkit', '--help'], cwd: merchantProject(project.path), targetMs: null, env: localEnv },
      { name: 'npx partnerkit program list --url', command: ['npx', 'partnerkit', 'program', 'list', '--url', server.url], cwd: project.path, targetMs: null, env: servedEnv },
    ];
    const baseline: number[] = [];
    const times = cases.map(() => [] as number[]);
    for (let round = 0; round < rounds; round++) {
      baseline.push(await timeProcess([process.execPath, '-e', '0'], base));
      for (const [i, c] of cases.entries()) times[i].push(await timeProcess(c.command, c.env, c.cwd));
    }
    return { baseline: summarize(baseline), cases: cases.map(({ env: _env, ...c }, i) => ({ ...c, ms: summarize(times[i]) })) };
  } finally {
    await server.stop();
    for (const dir of [served, local, project]) dir.remove();
  }
}
