import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { WebhookResult } from '../../src/api/index.js';
import { cliEnv, runCli, runJson, startServe, tempDataDir } from '../helpers/cli.js';
import { openTestStore } from '../helpers/engine.js';
import { FIXTURES } from '../helpers/stripe.js';

/**
 * A data dir with program 1, an enrolled partner and lead user_42 (e-mail jenny@shop.example),
 * set up in-process with the clock pinned, or through `server` with its clock.
 */
async function merchant(server?: (dir: string) => Promise<unknown>) {
  const dir = tempDataDir();
  await server?.(dir);
  const env = cliEnv(dir, { PARTNERKIT_NOW: '2026-03-01T12:00:00Z' });
  const program = await runJson(['program', 'create', '--name', 'Shop'], env);
  await runJson(['partner', 'create', '--name', 'Jane', '--email', 'jane@example.com'], env);
  const { refCode } = await runJson(['partner', 'enroll', '--program', '1', '--partner', '1'], env);
  const { click_id } = await runJson(['click', 'record', '--ref', refCode], env);
  await runJson(['lead', 'track', '--api-key', program.apiKey, '--customer-key', 'user_42', '--click-id', click_id, '--email', 'jenny@shop.example'], env);
  const set = ['--set', `CLICK_ID=${click_id}`, '--set', 'CUSTOMER_KEY=user_42', '--set', 'EMAIL=Jenny@Shop.example'];
  return { dir, env, program, set };
}

/** Each test spawns about ten CLI processes; shared 2-core machines make that slow. */
const CLI_TIMEOUT = 120_000;

const file = (name: string) => join(FIXTURES, `${name}.json`);

async function saleTotals(dir: string) {
  const store = await openTestStore({ dataDir: dir });
  try {
    return await store.read((sql) => sql.one<{ sales: number; revenue: number | null }>('SELECT count(*) AS sales, CAST(sum(amount_cents) AS BIGINT) AS revenue FROM sale_events'));
  } finally {
    await store.close();
  }
}

describe('partnerkit webhook replay / webhook events', () => {
  test('replays the fixture directory in-process: one line per file, a replay again records nothing twice', async () => {
    const { dir, env, set } = await merchant();
    const first = await runCli(['webhook', 'replay', FIXTURES, '--program', '1', ...set], env);
    expect(first.code).toBe(0);
    const lines = first.stdout.trim().split('\n').map((line) => line.replace(FIXTURES + '/', ''));
    expect(lines).toEqual([
      'checkout-async-pending.json  200  skipped (payment_not_completed)',
      'checkout-async-succeeded.json  200  recorded  sale 1',
      'checkout-email-fallback.json  200  recorded  sale 2',
      'checkout-one-time.json  200  recorded  sale 3',
      'checkout-subscription.json  200  recorded  sale 4',
      'customer-created.json  200  ignored (unhandled_event_type)',
      'invoice-first.json  200  skipped (not_subscription_cycle)',
      'invoice-paid-renewal.json  200  recorded  sale 5',
      'invoice-payment-paid.json  200  recorded (payment_linked)',
      'invoice-renewal-legacy.json  200  recorded  sale 6',
      'invoice-renewal-no-metadata.json  200  recorded  sale 7',
      'invoice-renewal.json  200  recorded  sale 8',
      'invoice-zero-amount.json  200  skipped (non_positive_amount)',
      'refund-full.json  200  recorded (refund_recorded)  sale 3',
      'refund-invoice-basil.json  200  recorded (refund_recorded)  sale 8',
      'refund-invoice-legacy.json  200  recorded (refund_recorded)  sale 6',
      'refund-partial.json  200  recorded (refund_recorded)  sale 1',
    ]);
    expect(await saleTotals(dir)).toEqual({ sales: 8, revenue: 9900 + 1999 + 5499 + 2900 + 2900 + 2900 + 2900 + 3190 });

    // Fresh event ids: every event is new to partnerkit, every payment is already recorded.
    const again = await runJson<Array<{ event_id: string; status: number; result: WebhookResult }>>(
      ['webhook', 'replay', file('checkout-one-time'), file('invoice-renewal'), '--program', '1', ...set], env,
    );
    expect(again.map(({ status, result: { outcome, reason, sale_id } }) => ({ status, outcome, reason, sale_id }))).toEqual([
      { status: 200, outcome: 'recorded', reason: 'already_recorded', sale_id: 3 },
      { status: 200, outcome: 'recorded', reason: 'already_recorded', sale_id: 8 },
    ]);
    expect(again[0].event_id).toMatch(/^evt_/);
    expect(again[0].event_id).not.toBe('evt_1RpkOneTimeQm2LdVhC1');
    expect(again[0].result.event_id).toBe(again[0].event_id);
    expect(await saleTotals(dir)).toMatchObject({ sales: 8 });

    const events = await runJson(['webhook', 'events', '--program', '1', '--limit', '3'], env);
    expect(events.map((e: { eventId: string; reason: string | null; saleId: number }) => [e.eventId, e.reason, e.saleId])).toEqual([
      [again[1].event_id, 'already_recorded', 8],
      [again[0].event_id, 'already_recorded', 3],
      [expect.stringMatching(/^evt_/), 'refund_recorded', 1],
    ]);
    // One line an event, within 80 columns, received in the terminal's time zone (docs/cli.md#tables-and-numbers).
    const table = await runCli(['webhook', 'events', '--program', '1', '--limit', '2'], { ...env, TZ: 'UTC' });
    expect(table.code).toBe(0);
    const rows = table.stdout.trimEnd().split('\n');
    for (const line of rows) expect(line.length).toBeLessThanOrEqual(80);
    expect(rows.map((line) => line.split(/ {2,}/))).toEqual([
      ['received', 'type', 'outcome', 'reason', 'sale'],
      ['───────────', '─'.repeat(26), '────────', '────────────────', '────'],
      ['Mar 1 12:00', 'invoice.payment_succeeded', 'recorded', 'already_recorded', '8'],
      ['Mar 1 12:00', 'checkout.session.completed', 'recorded', 'already_recorded', '3'],
    ]);
  }, CLI_TIMEOUT);

  test('a failed delivery exits 1: wrong secret, a placeholder without a value; the other files are still sent', async () => {
    const { env, set } = await merchant();
    const wrong = await runCli(['webhook', 'replay', file('checkout-one-time'), '--program', '1', '--secret', 'whsec_wrong', ...set, '--json'], env);
    expect(wrong.code).toBe(1);
    expect(JSON.parse(wrong.stdout)).toEqual([
      {
        file: file('checkout-one-time'), event_id: expect.stringMatching(/^evt_/), status: 400, result: null,
        error: "invalid_signature: The Stripe-Signature header does not match the body and this program's webhook secret",
      },
    ]);

    const partial = await runCli(
      ['webhook', 'replay', file('checkout-email-fallback'), file('checkout-one-time'), '--program', '1', '--set', 'CLICK_ID=ck_1_none', '--set', 'CUSTOMER_KEY=user_42'],
      env,
    );
    expect(partial.code).toBe(1);
    expect(partial.stdout.trim().split('\n')).toEqual([
      `${file('checkout-email-fallback')}  —  failed  no value for {{EMAIL}}; pass --set EMAIL=…`,
      `${file('checkout-one-time')}  200  recorded  sale 1`,
    ]);
    expect(partial.stderr).toContain('1 of 2 deliveries failed');
  }, CLI_TIMEOUT);

  test('through a running server (PARTNERKIT_NOW pinned on both sides); --keep-id makes the second replay a redelivery', async () => {
    const { dir, env, set } = await merchant();
    const server = await startServe(dir, [], { PARTNERKIT_NOW: '2026-03-01T12:00:00Z' });
    const args = ['webhook', 'replay', file('checkout-subscription'), file('invoice-first'), '--program', '1', '--keep-id', ...set];
    const first = await runJson(args, env);
    const second = await runJson([...args, '--url', server.url], env);
    expect(first.map(({ event_id, result }: { event_id: string; result: WebhookResult }) => [event_id, result.outcome, result.sale_id])).toEqual([
      ['evt_1RpkSubscriptionQm2LdVhD2', 'recorded', 1],
      ['evt_1RpkFirstInvoiceQm2LdVhH6', 'skipped', null],
    ]);
    expect(second.map(({ result: r }: { result: WebhookResult }) => [r.outcome, r.reason, r.sale_id, r.redelivery])).toEqual([
      ['recorded', null, 1, true],
      ['skipped', 'not_subscription_cycle', null, true],
    ]);
    expect(await runJson(['webhook', 'events', '--program', '1'], env)).toHaveLength(2);
    expect(await server.stop()).toBe(0);
    expect(await saleTotals(dir)).toEqual({ sales: 1, revenue: 2900 });
  }, CLI_TIMEOUT);

  test("the replay signs with the receiving server's clock, whichever side is pinned, and moves the event's times to that clock's now", async () => {
    // The server pinned, the CLI on the system clock.
    const pinned = await merchant();
    const pinnedServer = await startServe(pinned.dir, [], { PARTNERKIT_NOW: '2026-03-01T12:00:00Z' });
    const unpinnedCli = cliEnv(pinned.dir);
    const one = await runJson(['webhook', 'replay', file('checkout-one-time'), '--program', '1', ...pinned.set], unpinnedCli);
    expect(one.map(({ status, result }: { status: number; result: WebhookResult }) => [status, result.outcome, result.sale_id])).toEqual([[200, 'recorded', 1]]);
    expect(await pinnedServer.stop()).toBe(0);

    // The server on the system clock (the merchant set up through it), the CLI pinned to March.
    const running = await merchant((dir) => startServe(dir));
    const replayed = await runJson(['webhook', 'replay', file('checkout-one-time'), '--program', '1', ...running.set], running.env);
    expect(replayed.map(({ status, result }: { status: number; result: WebhookResult }) => [status, result.outcome, result.sale_id])).toEqual([[200, 'recorded', 1]]);
    // Dated by the moved event time: today by the server's clock, not March.
    const report = await runJson(['report', 'performance', '1', '--period', '7d'], running.env);
    const today = new Date().toISOString().slice(0, 10);
    expect(report.data.find((d: { date: string }) => d.date === today)).toMatchObject({ revenue: 54.99 });
  }, CLI_TIMEOUT);
});
