import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { onTestFinished } from 'vitest';
import { engineEnv } from './engine.js';

/** The built CLI (npm test builds first). */
export const BIN = resolve(import.meta.dirname, '../../bin/run.js');

export type CliResult = { code: number; stdout: string; stderr: string };

/** A fresh data dir, removed when the test that made it finishes (after the servers it started on it stopped). */
export function tempDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'partnerkit-cli-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export function cliEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PARTNERKIT_DATA_DIR: dataDir, NO_COLOR: '1', ...engineEnv(dataDir), ...extra };
  delete env.PARTNERKIT_URL;
  return env;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv, cwd?: string): Promise<CliResult> {
  return new Promise((done) => {
    execFile(process.execPath, [BIN, ...args], { env, cwd, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

/** Runs a command with --json and parses its one JSON document; fails on a non-zero exit. */
export async function runJson<T = any>(args: string[], env: NodeJS.ProcessEnv): Promise<T> {
  const result = await runCli([...args, '--json'], env);
  if (result.code !== 0) throw new Error(`partnerkit ${args.join(' ')} exited ${result.code}: ${result.stdout}${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

export type ServeProcess = {
  url: string;
  child: ChildProcess;
  stderr: () => string;
  /** The request log so far. */
  stdout: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
};

/**
 * `partnerkit serve --port 0` on the data dir (without --port when the environment names a port);
 * resolves once its discovery file names its URL. Killed when the test finishes.
 */
export async function startServe(dataDir: string, extraArgs: string[] = [], extraEnv: Record<string, string> = {}): Promise<ServeProcess> {
  const port = 'PORT' in extraEnv || 'PARTNERKIT_PORT' in extraEnv ? [] : ['--port', '0'];
  const child = spawn(process.execPath, [BIN, 'serve', ...port, ...extraArgs], { env: cliEnv(dataDir, extraEnv), stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  onTestFinished(async () => {
    await stop('SIGKILL');
  });
  const discovery = join(dataDir, 'server.json');
  const deadline = Date.now() + 30_000;
  while (!existsSync(discovery) || !readFileSync(discovery, 'utf8').includes(`"pid":${child.pid}`)) {
    if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}: ${stderr}`);
    if (Date.now() > deadline) throw new Error(`serve did not start: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const { url } = JSON.parse(readFileSync(discovery, 'utf8')) as { url: string };
  return { url, child, stderr: () => stderr, stdout: () => stdout, stop };
}

/** Polls until `condition` holds (output of a process arrives after its discovery file). */
export async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * The CLI on a pseudo-terminal (util-linux `script`, so Linux only): its exit code and everything it
 * wrote, escape codes stripped; `reply.answer` is typed once `reply.prompt` shows.
 */
export function runOnTerminal(args: string[], env: NodeJS.ProcessEnv, reply?: { prompt: string; answer: string }): Promise<{ code: number | null; output: string }> {
  return new Promise((done, fail) => {
    const command = [process.execPath, BIN, ...args].map((word) => `'${word}'`).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    let answered = false;
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (reply && !answered && output.includes(reply.prompt)) {
        answered = true;
        child.stdin!.write(reply.answer);
      }
    });
    child.once('error', fail);
    child.once('exit', (code) => done({ code, output: stripVTControlCharacters(output) }));
  });
}
