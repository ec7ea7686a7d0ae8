import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BIN, serve, summarize, tempDir, type Summary } from './lib.js';

/** A command line to time, and what it must not exceed (ms; null: shown, no target). */
export type CliCase = { name: string; command: string[]; cwd?: string; targetMs: number | null };
/** Wall time (the target's) and, for node processes, CPU time: on a busy machine the second moves less. */
export type Timing = { wallMs: number; cpuMs: number | null };
export type CliFigures = { baseline: { ms: Summary; cpuMs: Summary }; cases: Array<CliCase & { ms: Summary; cpuMs: Summary | null }> };

const CPU_HOOK = resolve(import.meta.dirname, 'cpu-time.js');

/** A whole process, spawn to exit, output discarded; a failing command fails the bench. */
function timeProcess(command: string[], env: NodeJS.ProcessEnv, cwd?: string, cpuFile?: string): Promise<Timing> {
  const measureCpu = cpuFile !== undefined && command[0] === process.execPath;
  const childEnv = measureCpu ? { ...env, PARTNERKIT_BENCH_CPU: cpuFile, NODE_OPTIONS: `--import=${CPU_HOOK}` } : env;
  const started = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(command[0], command.slice(1), { env: childEnv, cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', fail);
    child.once('exit', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) return fail(new Error(`${command.join(' ')} exited ${code}: ${stderr}`));
      done({ wallMs, cpuMs: measureCpu ? Number(readFileSync(cpuFile, 'utf8')) : null });
    });
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
 * Command latency as users see it (docs/architecture.md#command-start-up): whole `node bin/run.js …` processes,
 * with a server (`--url`) and opening the data dir, `--help`, and through npx, each beside
 * `node -e 0`. Rounds interleave the commands so the machine's noise falls on all of them alike.
 * Node processes also report their CPU time (`cpu-time.ts`), which a busy machine inflates less.
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
    const cpuFile = join(project.path, 'cpu-ms');
    const baseline: Timing[] = [];
    const times = cases.map(() => [] as Timing[]);
    for (let round = 0; round < rounds; round++) {
      baseline.push(await timeProcess([process.execPath, '-e', '0'], base, undefined, cpuFile));
      for (const [i, c] of cases.entries()) times[i].push(await timeProcess(c.command, c.env, c.cwd, cpuFile));
    }
    const cpu = (timings: Timing[]) => (timings[0].cpuMs === null ? null : summarize(timings.map((t) => t.cpuMs!)));
    return {
      baseline: { ms: summarize(baseline.map((t) => t.wallMs)), cpuMs: cpu(baseline)! },
      cases: cases.map(({ env: _env, ...c }, i) => ({ ...c, ms: summarize(times[i].map((t) => t.wallMs)), cpuMs: cpu(times[i]) })),
    };
  } finally {
    await server.stop();
    for (const dir of [served, local, project]) dir.remove();
  }
}
