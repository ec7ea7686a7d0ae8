import { describe, expect, test } from 'vitest';
import { cliEnv, runJson, runOnTerminal, startServe, tempDataDir } from '../helpers/cli.js';

// Runs against dist/: `npm run build` first. The demo's progress on a terminal (docs/behaviour.md §9.8).

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
