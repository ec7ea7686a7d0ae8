import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cliEnv, runCli, runOnTerminal, tempDataDir } from '../helpers/cli.js';

// Runs against dist/: `npm run build` first. Command names, help and completion (docs/cli.md#command-names-help-and-shell-completion).

describe('a misspelt command (@oclif/plugin-not-found)', () => {
  test.skipIf(process.platform !== 'linux')('on a terminal it asks "Did you mean webhook events?"; no runs nothing', async () => {
    const { code, output: text } = await runOnTerminal(['webhok', 'events'], cliEnv(tempDataDir()), { prompt: '(Y/n)', answer: 'n\r' });
    expect(code).toBe(127);
    expect(text).toContain('webhok events is not a partnerkit command.');
    expect(text).toContain('Did you mean webhook events?');
    expect(text).toContain('Run partnerkit help for a list of available commands.');
  });

  test('without a terminal: a warning and where the commands are listed, exit 127', async () => {
    const result = await runCli(['webhok', 'events'], cliEnv(tempDataDir()));
    expect(result.code).toBe(127);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('webhok events is not a partnerkit command.');
    expect(result.stderr).toContain('Run partnerkit help for a list of available commands.');
  });

  test('with --json: the one error document, exit 127', async () => {
    const result = await runCli(['webhok', 'events', '--program', '1', '--json'], cliEnv(tempDataDir()));
    expect(result.code).toBe(127);
    expect(JSON.parse(result.stdout)).toEqual({
      error: { code: 'command_not_found', message: 'webhok events is not a partnerkit command', status: null, details: null },
    });
    expect(result.stderr).toBe('');
  });
});

describe('help and completion', () => {
  test('partnerkit help webhook: the topic, what it covers, and every command in it', async () => {
    const result = await runCli(['help', 'webhook'], cliEnv(tempDataDir()));
    expect(result.code).toBe(0);
    const text = result.stdout.replace(/\s+/g, ' ');
    expect(text).toMatch(/^Stripe webhooks in: events \(received, with outcomes\), replay \(sign and post fixtures\), secret \(set the signing secret\); webhooks out: endpoint \(a program's endpoints\), deliveries \(the delivery log\), redeliver \(send an event again\) USAGE \$ partnerkit webhook COMMAND TOPICS/);
    for (const command of ['webhook events', 'webhook replay', 'webhook secret', 'webhook deliveries', 'webhook redeliver', 'webhook endpoint']) expect(text).toContain(command);
  });

  test('partnerkit autocomplete bash: instructions, and completions of every command and its flags', async () => {
    const cache = tempDataDir();
    const result = await runCli(['autocomplete', 'bash'], cliEnv(tempDataDir(), { XDG_CACHE_HOME: cache, HOME: cache }));
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('printf "$(partnerkit autocomplete script bash)" >> ~/.bashrc; source ~/.bashrc');
    const completions = readFileSync(join(cache, 'partnerkit', 'autocomplete', 'functions', 'bash', 'partnerkit.bash'), 'utf8');
    expect(completions).toContain('webhook:events --json --data-dir --url --database-url --program --limit');
    expect(completions).toContain('report:performance --json --data-dir --url --database-url --period --from --to --session-token --csv');
  });
});
