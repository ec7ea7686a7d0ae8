import { join, relative } from 'node:path';

/** Where the command that prints a hint was pointed: the follow-up must go to the same place. */
export type Target = { 'data-dir'?: string; url?: string };

/** A word as a POSIX shell reads it back: bare when it is safe, else single-quoted. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * A command line to print as the next step (docs/cli.md#how-commands-reach-the-service): the CLI as this process was
 * started (under Deno, `deno run --allow-all` and the package's bin/run.js; under Node, `npx partnerkit`),
 * the arguments, then the --data-dir and --url this command was given, so the hint reaches the
 * same data and the same server when pasted. `env` becomes leading NAME=value assignments.
 */
export function nextCommand(packageRoot: string, args: string[], target: Target, env: Record<string, string> = {}): string {
  const cli = 'Deno' in globalThis ? ['deno', 'run', '--allow-all', relative(process.cwd(), join(packageRoot, 'bin/run.js')) || 'bin/run.js'] : ['npx', 'partnerkit'];
  const words = [...cli, ...args];
  if (target['data-dir'] !== undefined) words.push('--data-dir', target['data-dir']);
  if (target.url !== undefined) words.push('--url', target.url);
  const assignments = Object.entries(env).map(([name, value]) => `${name}=${shellWord(value)}`);
  return [...assignments, ...words.map(shellWord)].join(' ');
}
