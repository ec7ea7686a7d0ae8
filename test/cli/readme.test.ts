import { execFile } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BIN, cliEnv, startServe, tempDataDir, type CliResult } from '../helpers/cli.js';

const ROOT = resolve(import.meta.dirname, '../..');

type Step = { line: number; command: string; expected?: string };

/**
 * The README's ```sh blocks as the commands a reader pastes: continuation lines joined, comment
 * lines dropped, and a `# → …` comment kept as the expected output of the command before it. A
 * block whose commands start with `$ ` is a transcript: the lines after each command are its output.
 */
function readmeSteps(markdown: string): Step[] {
  const steps: Step[] = [];
  const blocks = markdown.split('\n').reduce<Array<{ line: number; lines: string[] }>>((found, text, index, all) => {
    if (/^```(sh|bash)\s*$/.test(text)) found.push({ line: index + 2, lines: all.slice(index + 1, all.indexOf('```', index + 1)) });
    return found;
  }, []);
  for (const block of blocks) {
    const transcript = block.lines.some((text) => text.startsWith('$ '));
    let pending: Step | undefined;
    block.lines.forEach((text, offset) => {
      const line = block.line + offset;
      if (pending) {
        pending.command += ` ${text.trim().replace(/\\$/, '').trim()}`;
        if (!text.endsWith('\\')) pending = undefined;
        return;
      }
      if (transcript && !text.startsWith('$ ')) {
        const last = steps[steps.length - 1];
        last.expected = last.expected === undefined ? text : `${last.expected}\n${text}`;
        return;
      }
      const expected = /^# → (.*)$/.exec(text);
      if (expected) steps[steps.length - 1].expected = expected[1];
      if (text.trim() === '' || text.trimStart().startsWith('#')) return;
      const step = { line, command: text.replace(/^\$ /, '').replace(/\\$/, '').trim() };
      steps.push(step);
      if (text.endsWith('\\')) pending = step;
    });
  }
  return steps;
}

/** Not run here: the test builds and starts the server itself (`npm start`), and does not run its own suite. */
const NOT_RUN = /^(npm |npx vitest )/;

/** Each `<placeholder>` of the README is the latest value an earlier command printed that matches. */
const CAPTURES: Array<[string, RegExp]> = [
  ['<apiKey>', /apiKey\W+(pk_live_[\w-]+)/],
  ['<refCode>', /refCode\W+(\w+)/],
  ['<click_id>', /\b(ck_\d+_[\w-]+)/],
  ['<programId>', /program id\s+(\d+)/],
];

/** A `# → …` line as a pattern: literal text, with … standing for anything. */
const outputPattern = (expected: string) =>
  new RegExp(`^${expected.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*?')}$`, 's');

function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<CliResult> {
  return new Promise((done) => {
    execFile('sh', ['-c', command], { cwd, env, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

describe('README.md', () => {
  test('every shell example works when pasted in order next to `npm start`, placeholders filled from earlier output', async () => {
    const steps = readmeSteps(readFileSync(join(ROOT, 'README.md'), 'utf8')).filter((step) => !NOT_RUN.test(step.command));
    expect(steps.length).toBeGreaterThan(15);
    // A fresh clone's working directory: the default data dir ./.partnerkit and the fixtures.
    const cwd = tempDataDir();
    symlinkSync(join(ROOT, 'fixtures'), join(cwd, 'fixtures'));
    const server = await startServe(join(cwd, '.partnerkit'));
    const env = cliEnv('unused');
    for (const name of ['PARTNERKIT_DATA_DIR', 'PARTNERKIT_NOW', 'PARTNERKIT_URL', 'PARTNERKIT_SESSION_TOKEN']) delete env[name];
    const values = new Map<string, string>();

    for (const step of steps) {
      let command = step.command.replaceAll('npx partnerkit', `'${process.execPath}' '${BIN}'`).replaceAll('http://127.0.0.1:3000', server.url);
      for (const [placeholder] of CAPTURES) {
        if (!command.includes(placeholder)) continue;
        const value = values.get(placeholder);
        if (value === undefined) throw new Error(`README line ${step.line} uses ${placeholder} before any command printed it`);
        command = command.replaceAll(placeholder, value);
      }
      const exported = /^export (\w+)=(\S+)/.exec(command);
      if (exported) {
        env[exported[1]] = exported[2];
        continue;
      }
      const result = await sh(command, cwd, env);
      const where = `README line ${step.line}: ${step.command}\n${result.stdout}${result.stderr}`;
      expect(result.code, where).toBe(0);
      const expected = step.expected?.replaceAll('http://127.0.0.1:3000', server.url);
      if (expected !== undefined) expect(result.stdout.trim(), where).toMatch(outputPattern(expected.trim()));
      for (const [placeholder, pattern] of CAPTURES) {
        const match = pattern.exec(result.stdout);
        if (match) values.set(placeholder, match[1]);
      }
    }
    expect(await server.stop()).toBe(0);
  }, 300_000);
});
