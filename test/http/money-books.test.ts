import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, type TestApp } from '../helpers/app.js';

/*
 * Refunds (docs/refunds-and-payouts.md#refunds-and-the-commission-lifecycle) and payouts (docs/refunds-and-payouts.md#commission-approval-and-payouts) together: the books balance to the cent,
 * whatever order the money moves in.
 */

async function admin(t: TestApp, method: 'GET' | 'POST', url: string, payload?: object) {
  const response = await t.app.inject({ method, url, payload, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return { status: response.statusCode, body: response.json() };
}

/** Half up, in integers: a commission of `bp` basis points on `cents`. */
const percentOf = (cents: number, bp: number) => Math.floor((cents * bp + 5000) / 10000);

type Books = {
  /** Per sale: the sum of its commissions that count (neither reversed nor rejected), clawbacks included. */
  bySale: Map<number, { amount: number; refunded: number; commissions: number }>;
  /** Per partner: what payouts took (canceled ones excepted) plus the approved balance, and every counted commission. */
  byPartner: Map<number, { paidOrProcessing: number; balance: number; counted: number }>;
};

async function books(t: TestApp, programId: number): Promise<Books> {
  const rows = await t.store.read((sql) =>
    sql.all<{ sale_id: number; amount: number; refunded: number; commissions: number }>(
      `SELECT s.id AS sale_id, s.amount_cents AS amount,
         CAST((SELECT coalesce(sum(r.amount_cents), 0) FROM refunds r WHERE r.sale_id = s.id AND r.mode = 'live') AS BIGINT) AS refunded,
         CAST((SELECT coalesce(sum(c.amount_cents), 0) FROM commissions c WHERE c.sale_id = s.id AND c.status NOT IN ('reversed', 'rejected')) AS BIGINT) AS commissions
       FROM sale_events s WHERE s.program_id = $1 ORDER BY s.id`,
      [programId],
    ),
  );
  const bySale = new Map(rows.map((r) => [r.sale_id, { amount: r.amount, refunded: r.refunded, commissions: r.commissions }]));
  const commissions = (await admin(t, 'GET', `/api/programs/${programId}/commissions`)).body as Array<{ partnerId: number; amountCents: number; status: string }>;
  const payouts = (await admin(t, 'GET', `/api/programs/${programId}/payouts`)).body as Array<{ partnerId: number; amountCents: number; status: string }>;
  const byPartner = new Map<number, { paidOrProcessing: number; balance: number; counted: number }>();
  const of = (partnerId: number) => byPartner.get(partnerId) ?? byPartner.set(partnerId, { paidOrProcessing: 0, balance: 0, counted: 0 }).get(partnerId)!;
  for (const c of commissions) {
    if (c.status === 'approved') of(c.partnerId).balance += c.amountCents;
    if (c.status !== 'reversed' && c.status !== 'rejected') of(c.partnerId).counted += c.amountCents;
  }
  for (const p of payouts) if (p.status !== 'canceled') of(p.partnerId).paidOrProcessing += p.amountCents;
  return { bySale, byPartner };
}

/** Every sale nets to its commission on what is left of it; every partner's payouts plus balance are what it earned net of clawbacks. */
function expectBalanced({ bySale, byPartner }: Books) {
  for (const [saleId, sale] of bySale) expect(sale.commissions, `sale ${saleId}`).toBe(percentOf(sale.amount - sale.refunded, 2000));
  for (const [partnerId, partner] of byPartner) expect(partner.paidOrProcessing + partner.balance, `partner ${partnerId}`).toBe(partner.counted);
}

async function shop(partners: number) {
  const t = await buildTestApp();
  const program = await t.program({ holdDays: 0 });
  const customers = ['cust_1'];
  await t.lead(program, 'cust_1');
  for (let n = 2; n <= partners; n++) {
    const enrollment = await t.enroll(program.id, (await t.partner()).id);
    await t.lead({ ...program, refCode: enrollment.refCode }, `cust_${n}`);
    customers.push(`cust_${n}`);
  }
  return { t, program, customers };
}

describe('refunds and payouts together', () => {
  test('a refund after payout claws back the difference, and the next payout is that much smaller', async () => {
    const { t, program } = await shop(1);
    await t.sale(program, { transaction_id: 'in_1', amount_cents: 10_000 }); // commission 20.00
    const first = await admin(t, 'POST', `/api/programs/${program.id}/payouts`);
    expect(first.body.payouts.map((p: { amountCents: number }) => p.amountCents)).toEqual([2000]);
    expect((await admin(t, 'POST', `/api/payout-batches/${first.body.batchId}/mark-paid`)).status).toBe(200);

    const refund = await t.post('/api/v1/track/refund', { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 2_500 }, program.apiKey);
    // 75.00 left: 15.00 due, 20.00 paid, a clawback of −5.00.
    expect(refund.json()).toMatchObject({ commission_status: 'paid', remaining_cents: 7_500, clawback_commission_id: 2 });
    await t.sale(program, { transaction_id: 'in_2', amount_cents: 4_000 }); // commission 8.00
    const second = await admin(t, 'POST', `/api/programs/${program.id}/payouts`);
    expect(second.body.payouts.map((p: { amountCents: number; commissionIds: number[] }) => [p.amountCents, p.commissionIds])).toEqual([[300, [2, 3]]]);
    expectBalanced(await books(t, program.id));
  });

  test('a clawback larger than the new commissions waits as a negative balance; nothing is paid until it is covered', async () => {
    const { t, program } = await shop(1);
    await t.sale(program, { transaction_id: 'in_1', amount_cents: 10_000 });
    await admin(t, 'POST', `/api/programs/${program.id}/payouts`);
    await t.post('/api/v1/track/refund', { transaction_id: 'in_1', refund_id: 're_1' }, program.apiKey); // −20.00
    await t.sale(program, { transaction_id: 'in_2', amount_cents: 5_000 }); // +10.00
    expect((await admin(t, 'GET', `/api/programs/${program.id}/payouts/preview`)).body).toEqual({
      payouts: [], waiting: [{ partnerId: 1, currency: 'USD', balanceCents: -1000, reason: 'not_positive' }],
    });
    expect((await admin(t, 'POST', `/api/programs/${program.id}/payouts`)).body).toEqual({ batchId: null, payouts: [] });
    expectBalanced(await books(t, program.id));
  });

  test('refunds racing payout creation, in rounds with payouts paid and canceled: every sale and every partner balances to the cent', async () => {
    const { t, program, customers } = await shop(3);
    const amounts = Array.from({ length: 36 }, (_, i) => 1_000 + ((i * 7_919) % 9_000));
    for (const [i, amount] of amounts.entries()) {
      await t.sale(program, { transaction_id: `in_${i}`, amount_cents: amount, customer_key: customers[i % customers.length] });
    }
    let refundNo = 0;
    const refundSome = (round: number) =>
      amounts.flatMap((amount, i) => {
        if ((i + round) % 3 !== 0) return [];
        // A partial refund; every fourth sale refunded in full ("everything left").
        const body = i % 4 === 0 ? {} : { amount_cents: 1 + ((i * 31 + round * 17) % Math.floor(amount / 4)) };
        return [t.post('/api/v1/track/refund', { transaction_id: `in_${i}`, refund_id: `re_${refundNo++}`, ...body }, program.apiKey)];
      });
    for (let round = 0; round < 3; round++) {
      const results = await Promise.all([
        ...refundSome(round),
        admin(t, 'POST', `/api/programs/${program.id}/payouts`),
        admin(t, 'POST', `/api/programs/${program.id}/payouts`),
      ]);
      // A refund may find nothing left (a full refund earlier): 422; anything else is a defect.
      for (const r of results) expect([200, 422], JSON.stringify('json' in r ? r.json() : r.body)).toContain('statusCode' in r ? r.statusCode : r.status);
      const payouts = (await admin(t, 'GET', `/api/programs/${program.id}/payouts?status=processing`)).body as Array<{ id: number }>;
      if (payouts[0]) await admin(t, 'POST', `/api/payouts/${payouts[0].id}/cancel`);
      if (payouts[1]) await admin(t, 'POST', `/api/payouts/${payouts[1].id}/mark-paid`);
      expectBalanced(await books(t, program.id));
    }
    // Every commission is in at most one payout that was not canceled.
    const taken = await t.store.read((sql) =>
      sql.all<{ id: number; n: number }>(
        `SELECT c.id, CAST(count(*) AS INTEGER) AS n FROM payouts p, unnest(p.commission_ids) AS u(id) JOIN commissions c ON c.id = u.id
         WHERE p.status <> 'canceled' GROUP BY c.id HAVING count(*) > 1`,
      ),
    );
    expect(taken).toEqual([]);
  });
});

/** The program's commissions as the API lists them: [id, type, amount, status]. */
async function commissionRows(t: TestApp, programId: number) {
  const rows = (await admin(t, 'GET', `/api/programs/${programId}/commissions`)).body as Array<{ id: number; type: string; amountCents: number; status: string }>;
  return rows.map((c) => [c.id, c.type, c.amountCents, c.status]);
}

describe('refunds after a canceled payout (docs/books.md#what-a-refund-does-to-a-commission)', () => {
  const refund = (t: TestApp, apiKey: string, refundId: string, amount?: number) =>
    t.post('/api/v1/track/refund', { transaction_id: 'in_1', refund_id: refundId, ...(amount === undefined ? {} : { amount_cents: amount }) }, apiKey).then((r) => r.json());

  /** Sale in_1 of 500.00 (commission 100.00) taken into payout 1, refunded 100.00 (clawback 2 of −20.00), payout 1 canceled. */
  async function clawedBackThenCanceled() {
    const { t, program } = await shop(1);
    await t.sale(program, { transaction_id: 'in_1', amount_cents: 50_000 });
    expect((await admin(t, 'POST', `/api/programs/${program.id}/payouts`)).body.payouts).toMatchObject([{ id: 1, amountCents: 10_000, commissionIds: [1] }]);
    expect(await refund(t, program.apiKey, 're_1', 10_000)).toMatchObject({ remaining_cents: 40_000, commission_status: 'processing', clawback_commission_id: 2 });
    expect((await admin(t, 'POST', `/api/payouts/1/cancel`)).body).toMatchObject({ status: 'canceled' });
    expect(await commissionRows(t, program.id)).toEqual([[1, 'sale', 10_000, 'approved'], [2, 'clawback', -2_000, 'approved']]);
    return { t, program };
  }

  test('the reported case: two more refunds count the clawback, the full one reverses it too, and the next payout pays the 120.00 never paid', async () => {
    const { t, program } = await clawedBackThenCanceled();
    // 200.00 left earns 40.00, of which 20.00 was clawed back already: the commission is 60.00 (not 40.00).
    expect(await refund(t, program.apiKey, 're_2', 20_000)).toMatchObject({ remaining_cents: 20_000, commission_id: 1, commission_status: 'approved', clawback_commission_id: null });
    expect(await commissionRows(t, program.id)).toEqual([[1, 'sale', 6_000, 'approved'], [2, 'clawback', -2_000, 'approved']]);
    expectBalanced(await books(t, program.id));
    // The rest: the commission is reversed and so is its clawback, which no payout holds.
    expect(await refund(t, program.apiKey, 're_3')).toMatchObject({ remaining_cents: 0, commission_status: 'reversed', clawback_commission_id: null });
    expect(await commissionRows(t, program.id)).toEqual([[1, 'sale', 6_000, 'reversed'], [2, 'clawback', -2_000, 'reversed']]);
    await t.sale(program, { transaction_id: 'in_2', amount_cents: 60_000 }); // 120.00
    // Not 10,000: the reversed sale's clawback is not taken from a partner never paid for that sale.
    const next = await admin(t, 'POST', `/api/programs/${program.id}/payouts`);
    expect(next.body.payouts.map((p: { amountCents: number; commissionIds: number[] }) => [p.amountCents, p.commissionIds])).toEqual([[12_000, [3]]]);
    expectBalanced(await books(t, program.id));
  });

  test('rejecting the commission reverses its open clawback: the sale nets to nothing', async () => {
    const { t, program } = await clawedBackThenCanceled();
    const answer = await admin(t, 'POST', `/api/programs/${program.id}/commissions/reject`, { ids: [1], reason: 'Fraud' });
    expect(answer.body).toEqual([expect.objectContaining({ id: 1, amountCents: 10_000, status: 'rejected', reason: 'Fraud' })]);
    expect(await commissionRows(t, program.id)).toEqual([[1, 'sale', 10_000, 'rejected'], [2, 'clawback', -2_000, 'reversed']]);
    expect((await admin(t, 'GET', `/api/programs/${program.id}/payouts/preview`)).body).toEqual({ payouts: [], waiting: [] });
  });

  test('a clawback another payout took stays: rejecting is refused, and a full refund leaves the commission at what that payout took', async () => {
    const { t, program } = await shop(1);
    await t.sale(program, { transaction_id: 'in_1', amount_cents: 50_000 }); // 100.00
    await admin(t, 'POST', `/api/programs/${program.id}/payouts`); // payout 1: commission 1
    await refund(t, program.apiKey, 're_1', 10_000); // clawback 2: −20.00
    await t.sale(program, { transaction_id: 'in_2', amount_cents: 60_000 }); // 120.00
    // Payout 2 takes the clawback with the new commission: 120.00 − 20.00.
    expect((await admin(t, 'POST', `/api/programs/${program.id}/payouts`)).body.payouts).toMatchObject([{ id: 2, amountCents: 10_000, commissionIds: [2, 3] }]);
    expect((await admin(t, 'POST', `/api/payouts/1/cancel`)).status).toBe(200);

    expect(await admin(t, 'POST', `/api/programs/${program.id}/commissions/reject`, { ids: [1] })).toEqual({
      status: 409,
      body: {
        data: null,
        error: {
          status: 409, name: 'ConflictError', code: 'invalid_status', message: 'Cannot reject commission 1 (its clawbacks 2 are in payouts); nothing was changed',
          details: { commissions: [{ id: 1, status: 'approved', clawbacksInPayouts: [2] }] },
        },
      },
    });
    expect(await commissionRows(t, program.id)).toEqual([[1, 'sale', 10_000, 'approved'], [2, 'clawback', -2_000, 'processing'], [3, 'sale', 12_000, 'processing']]);

    // Fully refunded, the sale earns nothing; payout 2 took 20.00 back, so the commission stays at 20.00 to repay it.
    expect(await refund(t, program.apiKey, 're_2')).toMatchObject({ remaining_cents: 0, commission_id: 1, commission_status: 'approved', clawback_commission_id: null });
    expect(await commissionRows(t, program.id)).toEqual([[1, 'sale', 2_000, 'approved'], [2, 'clawback', -2_000, 'processing'], [3, 'sale', 12_000, 'processing']]);
    expectBalanced(await books(t, program.id));
    expect((await admin(t, 'POST', `/api/payouts/2/mark-paid`)).status).toBe(200);
    const next = await admin(t, 'POST', `/api/programs/${program.id}/payouts`);
    expect(next.body.payouts.map((p: { amountCents: number; commissionIds: number[] }) => [p.amountCents, p.commissionIds])).toEqual([[2_000, [1]]]);
    expectBalanced(await books(t, program.id));
  });
});
