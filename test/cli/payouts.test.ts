import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cliEnv, runCli, runJson, tempDataDir } from '../helpers/cli.js';

// Runs dist/ (`npm run build` first), in-process on a data dir with the clock pinned by PARTNERKIT_NOW.
// About thirty processes: a minute alone, more on a loaded machine.
const T0 = '2026-03-01T12:00:00.000Z';
const LATER = '2026-03-03T12:00:00.000Z'; // past the one hold day

describe('commission review and payouts from the CLI', () => {
  test('program and partner settings, approve, reject, preview, create, list, show, export, mark-paid, cancel', async () => {
    const dataDir = tempDataDir();
    const at = (now: string) => cliEnv(dataDir, { PARTNERKIT_NOW: now, PARTNERKIT_SESSION_TOKEN: '' });
    const env = at(T0);

    const program = await runJson(['program', 'create', '--name', 'Acme', '--hold-days', '1', '--approval', 'manual', '--min-payout-cents', '500'], env);
    expect(program).toMatchObject({ id: 1, holdDays: 1, approval: 'manual', minPayoutCents: 500, recurringMonths: null });
    expect(await runJson(['partner', 'create', '--name', 'Jane', '--email', 'jane@example.com'], env)).toEqual({
      id: 1, name: 'Jane', email: 'jane@example.com', payoutMethod: null, payoutEmail: null, status: 'active',
    });
    expect(await runJson(['partner', 'update', '--partner', '1', '--payout-method', 'paypal', '--payout-email', 'Jane.Pay@example.com'], env)).toEqual({
      id: 1, name: 'Jane', email: 'jane@example.com', payoutMethod: 'paypal', payoutEmail: 'jane.pay@example.com', status: 'active',
    });
    const { refCode } = await runJson(['partner', 'enroll', '--program', '1', '--partner', '1'], env);
    const { click_id: clickId } = await runJson(['click', 'record', '--ref', refCode], env);
    await runJson(['lead', 'track', '--api-key', program.apiKey, '--customer-key', 'user_1', '--click-id', clickId], env);
    for (const [txn, cents] of [['in_1', '5000'], ['in_2', '12345'], ['in_3', '999']]) {
      await runJson(['sale', 'send', '--api-key', program.apiKey, '--customer-key', 'user_1', '--amount-cents', cents, '--transaction-id', txn], env);
    }

    const later = at(LATER);
    const pending = await runJson(['commission', 'list', '--program', '1', '--status', 'pending'], later);
    expect(pending.map((c: { id: number; amountCents: number; holdUntil: string }) => [c.id, c.amountCents, c.holdUntil])).toEqual([
      [1, 1000, '2026-03-02T12:00:00.000Z'], [2, 2469, '2026-03-02T12:00:00.000Z'], [3, 200, '2026-03-02T12:00:00.000Z'],
    ]);
    // A page: --json prints its rows; the table says how many of the total it shows.
    expect((await runJson(['commission', 'list', '--program', '1', '--limit', '2'], later)).map((c: { id: number }) => c.id)).toEqual([1, 2]);
    const paged = await runCli(['commission', 'list', '--program', '1', '--limit', '2', '--offset', '2'], later);
    expect([paged.code, paged.stdout.trim().split('\n').at(-1)]).toEqual([0, 'Showing 1 of 3']);
    expect((await runJson(['commission', 'approve', '--program', '1', '--ids', '1,2'], later)).map((c: { status: string }) => c.status)).toEqual(['approved', 'approved']);
    expect(await runJson(['commission', 'reject', '--program', '1', '--ids', '3', '--reason', 'Test order'], later)).toEqual([
      expect.objectContaining({ id: 3, status: 'rejected', reason: 'Test order' }),
    ]);
    const refused = await runCli(['commission', 'approve', '--program', '1', '--ids', '2,3', '--json'], later);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toEqual({
      error: {
        code: 'invalid_status', status: 409, message: 'Cannot approve commission 3 (rejected); nothing was changed',
        details: { commissions: [{ id: 3, status: 'rejected' }] },
      },
    });
    const badIds = await runCli(['commission', 'approve', '--program', '1', '--ids', '1,x'], later);
    expect(badIds.code).not.toBe(0);
    expect(badIds.stderr).toContain('--ids takes positive integers separated by commas, not 1,x');

    // A workspace member runs the same commands with their session token.
    await runJson(['member', 'add', '--program', '1', '--email', 'finance@example.com'], later);
    const { token } = await runJson(['session', 'create', '--email', 'finance@example.com'], later);
    expect(await runJson(['payout', 'preview', '--program', '1', '--session-token', token], later)).toEqual({
      payouts: [{ partnerId: 1, currency: 'USD', amountCents: 3469, commissionCount: 2 }],
      waiting: [],
    });
    const created = await runJson(['payout', 'create', '--program', '1'], later);
    const payout = {
      id: 1, batchId: 1, programId: 1, partnerId: 1, currency: 'USD', amountCents: 3469, commissionIds: [1, 2], status: 'processing', createdAt: LATER, paidAt: null,
    };
    expect(created).toEqual({ batchId: 1, payouts: [payout] });
    expect(await runJson(['payout', 'create', '--program', '1'], later)).toEqual({ batchId: null, payouts: [] });
    expect(await runJson(['payout', 'list', '--program', '1', '--status', 'processing'], later)).toEqual([payout]);
    expect(await runJson(['payout', 'show', '1'], later)).toEqual(payout);
    const table = await runCli(['payout', 'list', '--program', '1'], later);
    expect(table.stdout).toMatch(/^ *1 +1 +#1 Jane +34\.69 USD +processing +—$/m);

    const paypal = join(dataDir, 'paypal.csv');
    expect(await runJson(['payout', 'export', '--batch', '1', '--format', 'paypal', '--out', paypal], later)).toEqual({ file: paypal, rows: 1, skipped: [] });
    expect(readFileSync(paypal, 'utf8')).toBe('jane.pay@example.com,34.69,USD,pk-payout-1,Partner commission payout 1,PAYPAL\r\n');
    expect(statSync(paypal).mode & 0o777).toBe(0o600);
    const wise = join(dataDir, 'wise.csv');
    expect(await runJson(['payout', 'export', '--batch', '1', '--format', 'wise', '--out', wise], later)).toEqual({
      file: wise, rows: 0, skipped: [{ payoutId: 1, partnerId: 1, reason: 'other_payout_method' }],
    });
    expect(readFileSync(wise, 'utf8')).toBe('name,recipientEmail,paymentReference,receiverType,amountCurrency,amount,sourceCurrency,targetCurrency\r\n');
    const stdout = await runCli(['payout', 'export', '--batch', '1', '--format', 'csv', '--out', '-'], later);
    expect(stdout.stdout).toBe(
      'partner_id,partner_name,payout_email,payout_method,currency,amount,commission_count,payout_id\r\n1,Jane,jane.pay@example.com,paypal,USD,34.69,2,1\r\n',
    );

    const paid = { ...payout, status: 'paid', paidAt: LATER };
    expect(await runJson(['payout', 'mark-paid', '--payout', '1'], later)).toEqual(paid);
    expect(await runJson(['payout', 'mark-paid', '--batch', '1'], at('2026-03-04T00:00:00.000Z'))).toEqual({ batchId: 1, payouts: [paid] });
    const cancel = await runCli(['payout', 'cancel', '--payout', '1'], later);
    expect(cancel.code).toBe(1);
    expect(cancel.stderr).toContain('invalid_status: Payout 1 is paid and cannot be canceled');
    expect((await runJson(['commission', 'list', '--program', '1', '--status', 'paid'], later)).map((c: { id: number }) => c.id)).toEqual([1, 2]);

    expect(await runJson(['program', 'update', '--program', '1', '--approval', 'auto', '--recurring-months', '6'], later)).toMatchObject({
      approval: 'auto', recurringMonths: 6, holdDays: 1, minPayoutCents: 500,
    });
    expect(await runJson(['program', 'update', '--program', '1', '--every-renewal', '--name', 'Acme 2'], later)).toMatchObject({ name: 'Acme 2', recurringMonths: null });
  }, 240_000);
});
