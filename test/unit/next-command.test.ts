import { afterEach, describe, expect, test } from 'vitest';
import { nextCommand } from '../../src/cli/next-command.js';

describe('nextCommand (hints printed by serve and demo)', () => {
  afterEach(() => {
    delete (globalThis as { Deno?: unknown }).Deno;
  });

  test('under Node: npx partnerkit, the arguments, then the --data-dir and --url given, quoted for a POSIX shell', () => {
    expect(nextCommand('/pkg', ['program', 'list'], {})).toBe('npx partnerkit program list');
    expect(nextCommand('/pkg', ['program', 'create', '--name', "Ann's shop"], { 'data-dir': '/srv/pk data', url: 'http://10.0.0.2:3000' }, { PARTNERKIT_SESSION_TOKEN: 'pks_a-b' }))
      .toBe(`PARTNERKIT_SESSION_TOKEN=pks_a-b npx partnerkit program create --name 'Ann'\\''s shop' --data-dir '/srv/pk data' --url http://10.0.0.2:3000`);
  });

  test('under Deno: deno run --allow-all with the package bin, relative to the working directory', () => {
    (globalThis as { Deno?: unknown }).Deno = {};
    expect(nextCommand(process.cwd(), ['program', 'list'], { 'data-dir': 'x' })).toBe('deno run --allow-all bin/run.js program list --data-dir x');
  });
});
