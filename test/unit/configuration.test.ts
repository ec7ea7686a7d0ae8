import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Parser, type Interfaces } from '@oclif/core';
import { afterEach, describe, expect, test } from 'vitest';
import Serve from '../../commands/serve.js';
import { configurationTable, envName, withConfigurationTable } from '../../src/cli/configuration.js';

const README = resolve(import.meta.dirname, '../../README.md');
const FLAGS = Object.entries(Serve.flags) as Array<[string, Interfaces.Flag<any>]>;

/** `serve`'s flags as oclif parses them, with `env` as the process environment. */
async function parseServe(argv: string[], env: Record<string, string>): Promise<Record<string, unknown>> {
  for (const name of VARIABLES) delete process.env[name];
  for (const [name, value] of Object.entries(env)) process.env[name] = value;
  const { flags } = await Parser.parse(argv, { flags: { ...Serve.flags, ...Serve.baseFlags }, strict: true });
  return flags;
}

const VARIABLES = ['PORT', ...Object.keys({ ...Serve.flags, ...Serve.baseFlags }).map(envName)];
const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) if (value === undefined) delete process.env[name];
  else process.env[name] = value;
});

/** Two values of the flag other than its default, as text. */
function samples(flag: Interfaces.Flag<any>): [string, string] {
  if (flag.type === 'boolean') return ['true', ''];
  if (flag.options) {
    const [a, b] = flag.options.filter((o) => o !== flag.default);
    return [a, b];
  }
  if (typeof flag.default === 'number' || typeof flag.defaultHelp === 'number') {
    const base = Number(flag.defaultHelp ?? flag.default);
    return [String(base + 7), String(base + 9)];
  }
  // A string: an address, as --host and a proxy list take.
  return ['10.0.0.7', '10.0.0.9'];
}

/** What oclif makes of the flag's text: its own parse (integers, proxy lists), or the text. */
async function parsedValue(flag: Interfaces.Flag<any>, text: string): Promise<unknown> {
  if (flag.type === 'boolean') return true;
  return flag.parse ? flag.parse(text, {} as never, flag as never) : text;
}

describe('serve configuration from the environment (docs/operations.md#configuration)', () => {
  test.each(FLAGS)('--%s is read from its PARTNERKIT_ variable, and the flag wins', async (name, flag) => {
    const variable = envName(name);
    const [text, other] = samples(flag);
    expect((await parseServe([], { [variable]: text }))[name]).toEqual(await parsedValue(flag, text));
    const given = flag.type === 'boolean' ? [`--${name}`] : [`--${name}`, other];
    expect((await parseServe(given, { [variable]: flag.type === 'boolean' ? 'no' : text }))[name]).toEqual(await parsedValue(flag, other));
  });

  test('PORT is the port when neither --port nor PARTNERKIT_PORT is given', async () => {
    expect((await parseServe([], {})).port).toBe(3000);
    expect((await parseServe([], { PORT: '8080' })).port).toBe(8080);
    expect((await parseServe([], { PORT: '8080', PARTNERKIT_PORT: '9090' })).port).toBe(9090);
    expect((await parseServe(['--port', '7070'], { PORT: '8080', PARTNERKIT_PORT: '9090' })).port).toBe(7070);
    await expect(parseServe([], { PORT: 'http' })).rejects.toThrow('PORT=http is not a port number (0 to 65535)');
  });

  test('a variable that does not parse is refused like the flag', async () => {
    await expect(parseServe([], { PARTNERKIT_RATE_LIMIT: 'many' })).rejects.toThrow('Expected an integer but received: many');
    await expect(parseServe([], { PARTNERKIT_LOG_LEVEL: 'loud' })).rejects.toThrow('Expected --log-level=loud to be one of');
  });

  test("the README's configuration table is the one the flags generate (npm run docs:config)", () => {
    const readme = readFileSync(README, 'utf8');
    expect(readme).toBe(withConfigurationTable(readme, configurationTable({ ...Serve.flags, ...Serve.baseFlags })));
    for (const variable of ['PARTNERKIT_DATA_DIR', 'PARTNERKIT_DATABASE_URL', 'PARTNERKIT_URL', 'PARTNERKIT_NOW', 'PARTNERKIT_ADMIN_TOKEN', 'PARTNERKIT_PORT']) {
      expect(readme).toContain(`\`${variable}\``);
    }
  });
});
