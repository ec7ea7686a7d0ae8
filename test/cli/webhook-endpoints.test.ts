import { expect, test } from 'vitest';
import { cliEnv, runCli, runJson, tempDataDir } from '../helpers/cli.js';

/** Each test spawns several CLI processes; shared 2-core machines make that slow. */
const CLI_TIMEOUT = 120_000;

test('webhook endpoint add shows the secret once; list, update, test, deliveries and redeliver never show it, tables within 80 columns', { timeout: CLI_TIMEOUT }, async () => {
  const env = cliEnv(tempDataDir(), { PARTNERKIT_NOW: '2026-03-01T12:00:00Z' });
  await runJson(['program', 'create', '--name', 'Shop'], env);
  const added = await runJson(['webhook', 'endpoint', 'add', '--program', '1', '--endpoint-url', 'https://user:pw@example.com/hooks', '--events', 'sale.created,ping'], env);
  expect(added).toMatchObject({ id: 1, programId: 1, url: 'https://example.com/hooks', events: ['sale.created', 'ping'], enabled: true });
  expect(added.secret).toMatch(/^whsec_/);

  const list = await runCli(['webhook', 'endpoint', 'list', '--program', '1'], env);
  expect(list.code).toBe(0);
  expect(list.stdout).toContain('https://example.com/hooks');
  for (const line of list.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  const listed = await runJson(['webhook', 'endpoint', 'list', '--program', '1'], env);
  expect(JSON.stringify(listed)).not.toContain('whsec_');
  expect(JSON.stringify(listed)).not.toContain('pw');

  const updated = await runJson(['webhook', 'endpoint', 'update', '--endpoint', '1', '--all-events'], env);
  expect(updated.events).toBeNull();
  const described = await runCli(['webhook', 'endpoint', 'update', '--endpoint', '1', '--description', 'Orders'], env);
  expect(described.stdout).toMatch(/^events +all$/m);
  const ping = await runJson(['webhook', 'endpoint', 'test', '--endpoint', '1'], env);
  expect(ping).toEqual({ eventId: expect.stringMatching(/^evt_/), deliveries: [1] });
  const deliveries = await runCli(['webhook', 'deliveries', '--endpoint', '1'], env);
  expect(deliveries.code).toBe(0);
  expect(deliveries.stdout).toContain('ping');
  expect(deliveries.stdout).toContain('pending');
  for (const line of deliveries.stdout.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  expect(await runJson(['webhook', 'redeliver', '--event', ping.eventId], env)).toEqual({ eventId: ping.eventId, deliveries: [2] });

  const unknown = await runCli(['webhook', 'redeliver', '--event', 'evt_nope'], env);
  expect(unknown.code).not.toBe(0);
  expect(unknown.stderr).toContain('Webhook event evt_nope not found');
  const bad = await runCli(['webhook', 'endpoint', 'add', '--program', '1', '--endpoint-url', 'ftp://example.com/'], env);
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toContain('url');
  const rotated = await runJson(['webhook', 'endpoint', 'rotate-secret', '--endpoint', '1'], env);
  expect(rotated.secret).not.toBe(added.secret);
  expect((await runJson(['webhook', 'endpoint', 'remove', '--endpoint', '1'], env)).id).toBe(1);
  expect(await runJson(['webhook', 'endpoint', 'list', '--program', '1'], env)).toEqual([]);
});
