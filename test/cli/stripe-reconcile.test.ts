import { expect, test } from 'vitest';
import { checkoutEvents, FAKE_STRIPE_KEY, fakeStripe } from '../helpers/fake-stripe.js';
import { cliEnv, runCli, runJson, tempDataDir } from '../helpers/cli.js';

/** Each test spawns several CLI processes; shared 2-core machines make that slow. */
const CLI_TIMEOUT = 120_000;

test('stripe reconcile: a dry run lists what it would record, a run records it, a rerun finds it recorded; a refused key names the program, never the key', { timeout: CLI_TIMEOUT }, async () => {
  const fake = await fakeStripe();
  const env = cliEnv(tempDataDir(), { PARTNERKIT_NOW: '2026-03-01T12:00:00Z', PARTNERKIT_STRIPE_API_BASE: fake.url });
  const program = await runJson(['program', 'create', '--name', 'Shop'], env);
  await runJson(['program', 'update', '--program', '1', '--stripe-api-key', FAKE_STRIPE_KEY], env);
  const { refCode } = await runJson(['partner', 'enroll', '--program', '1', '--partner', String((await runJson(['partner', 'create', '--name', 'Ann', '--email', 'ann@example.com'], env)).id)], env);
  const { click_id } = await runJson(['click', 'record', '--ref', refCode], env);
  await runJson(['lead', 'track', '--api-key', program.apiKey, '--customer-key', 'user_42', '--click-id', click_id], env);
  fake.events.push(...checkoutEvents(2, { CLICK_ID: click_id, CUSTOMER_KEY: 'user_42', PROGRAM_ID: '1' }, Date.parse('2026-03-01T11:59:00Z') / 1000));

  const dry = await runCli(['stripe', 'reconcile', '--program', '1', '--dry-run'], env);
  expect([dry.code, dry.stdout]).toEqual([0, [
    'Program 1, Stripe events since 2026-01-30T12:00:00.000Z (dry run: nothing recorded)',
    'checked           2',
    'already recorded  0',
    'to record         2',
    'skipped           0',
    'failed            0',
    '',
  ].join('\n')]);
  const run = await runJson(['stripe', 'reconcile', '--program', '1'], env);
  expect([run.checked, [...run.recordedNow].sort(), run.alreadyRecorded, run.skipped, run.failed]).toEqual([2, ['evt_rec_00001', 'evt_rec_00002'], [], [], []]);
  const again = await runJson(['stripe', 'reconcile', '--program', '1'], env);
  expect([again.checked, [...again.alreadyRecorded].sort(), again.recordedNow]).toEqual([2, ['evt_rec_00001', 'evt_rec_00002'], []]);
  expect((await runJson(['commission', 'list', '--program', '1'], env)).map((c: { status: string }) => c.status)).toEqual(['pending', 'pending']);

  await runJson(['program', 'update', '--program', '1', '--stripe-api-key', 'rk_test_NotTheFakeKey99'], env);
  const refused = await runCli(['stripe', 'reconcile', '--program', '1'], env);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain('Stripe refused the API key of program 1 (401)');
  expect(`${refused.stdout}${refused.stderr}`).not.toContain('NotTheFakeKey');
});
