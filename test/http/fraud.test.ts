import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, type ProgramFixture, type TestApp } from '../helpers/app.js';

/**
 * Fraud rules and held commissions (docs/fraud.md): each rule in each mode, the on_hold status kept
 * out of approval and payouts, release and reject, the fraud events and commission.updated.
 */

async function call(t: TestApp, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object) {
  const response = await t.app.inject({ method, url, payload, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return { status: response.statusCode, body: response.json() };
}

const OFF = { selfReferral: 'off', disposableEmail: 'off', fastConversion: 'off', refundRate: 'off' } as const;
type Rule = keyof typeof OFF;
type Mode = 'off' | 'flag' | 'hold';

/** A program (partner e-mail ann.lee@gmail.com) whose rules are all off but `rule`, which is `mode`. */
async function programWith(rule?: Rule, mode?: Mode): Promise<{ t: TestApp; program: ProgramFixture }> {
  const t = await buildTestApp();
  const program = await t.program();
  await t.admin('PATCH', `/partners/${program.partnerId}`, { email: 'ann.lee@gmail.com' });
  await t.admin('PATCH', `/programs/${program.id}`, { fraudRules: rule ? { ...OFF, [rule]: mode } : OFF });
  return { t, program };
}

const fraudEvents = (t: TestApp, programId: number, status = 'all') => call(t, 'GET', `/api/programs/${programId}/fraud-events?status=${status}`);
const commission = async (t: TestApp, programId: number, id: number) =>
  (await call(t, 'GET', `/api/programs/${programId}/commissions`)).body.find((c: { id: number }) => c.id === id);

/** For each rule: a sale that makes it fire, and the evidence it records. */
const FIRING: Record<Rule, { setup(t: TestApp, program: ProgramFixture): Promise<void>; evidence: Record<string, unknown>; rule: string }> = {
  selfReferral: {
    rule: 'self_referral',
    // Dots and +tag removed for Gmail, googlemail.com read as gmail.com.
    setup: async (t, program) => {
      await t.lead(program, 'cust_1', { email: 'AnnLee+promo@googlemail.com' });
      t.clock.set('2026-03-01T12:05:00.000Z');
    },
    evidence: { customerEmail: 'annlee@gmail.com', partnerEmail: 'annlee@gmail.com' },
  },
  disposableEmail: {
    rule: 'disposable_email',
    setup: async (t, program) => {
      await t.lead(program, 'cust_1', { email: 'someone@mailinator.com' });
      t.clock.set('2026-03-01T12:05:00.000Z');
    },
    evidence: { customerEmail: 'someone@mailinator.com', domain: 'mailinator.com' },
  },
  fastConversion: {
    rule: 'fast_conversion',
    setup: async (t, program) => {
      await t.lead(program, 'cust_1');
      t.clock.set('2026-03-01T12:00:09.999Z');
    },
    evidence: { clickAt: '2026-03-01T12:00:00.000Z', receivedAt: '2026-03-01T12:00:09.999Z', seconds: 9.999 },
  },
  refundRate: {
    rule: 'refund_rate',
    // Ten sales, four of them refunded (40 %), before the sale checked.
    setup: async (t, program) => {
      await t.lead(program, 'cust_1');
      t.clock.set('2026-03-01T12:05:00.000Z');
      for (let i = 1; i <= 10; i++) await t.sale(program, { transaction_id: `in_old_${i}` });
      for (let i = 1; i <= 4; i++) {
        const refund = await t.post('/api/v1/track/refund', { transaction_id: `in_old_${i}`, refund_id: `re_${i}`, amount_cents: 100 }, program.apiKey);
        expect(refund.statusCode).toBe(200);
      }
    },
    evidence: { sales: 10, refunded: 4, ratePercent: 40, sinceDays: 30 },
  },
};

describe('program settings', () => {
  test('a program has the four rules at their defaults; an update changes the rules it names', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const shown = await t.admin('GET', `/programs/${program.id}`);
    expect(shown.fraudRules).toEqual({ selfReferral: 'hold', disposableEmail: 'flag', fastConversion: 'flag', refundRate: 'flag' });
    const updated = await t.admin('PATCH', `/programs/${program.id}`, { fraudRules: { fastConversion: 'off' } });
    expect(updated.fraudRules).toEqual({ selfReferral: 'hold', disposableEmail: 'flag', fastConversion: 'off', refundRate: 'flag' });
    expect((await t.admin('PATCH', `/programs/${program.id}`, { holdDays: 7 })).fraudRules.fastConversion).toBe('off');
  });

  test('a mode other than off, flag or hold is 400 naming the rule', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const response = await call(t, 'PATCH', `/api/admin/programs/${program.id}`, { fraudRules: { refundRate: 'block' } });
    expect(response.status).toBe(400);
    expect(response.body.error.details.fields.map((d: { field: string }) => d.field)).toEqual(['fraudRules.refundRate']);
  });
});

describe('each rule in each mode', () => {
  const cases = (Object.keys(FIRING) as Rule[]).flatMap((rule) => (['off', 'flag', 'hold'] as const).map((mode) => [rule, mode] as const));

  test.each(cases)('%s %s', async (rule, mode) => {
    const { t, program } = await programWith(rule, mode);
    await FIRING[rule].setup(t, program);
    const sale = await t.sale(program, { transaction_id: 'in_checked' });
    const events = (await fraudEvents(t, program.id)).body;
    const status = (await commission(t, program.id, sale.commission_id)).status;
    if (mode === 'off') {
      expect(events).toEqual([]);
      expect(status).toBe('pending');
      return;
    }
    expect(events).toEqual([
      {
        id: 1, commissionId: sale.commission_id, saleId: sale.sale_id, partnerId: program.partnerId, partnerName: 'Partner', rule: FIRING[rule].rule,
        action: mode, evidence: FIRING[rule].evidence, createdAt: t.clock.now().toISOString(), commissionStatus: mode === 'hold' ? 'on_hold' : 'pending',
        amountCents: 1000, currency: 'USD',
      },
    ]);
    expect(status).toBe(mode === 'hold' ? 'on_hold' : 'pending');
  });

  test.each([
    ['self_referral: another address', 'selfReferral', { email: 'ann.lee@example.com' }, 300_000],
    ['disposable_email: an ordinary domain', 'disposableEmail', { email: 'buyer@example.com' }, 300_000],
    ['fast_conversion: 10 s after the click', 'fastConversion', {}, 10_000],
  ] as const)('%s does not fire', async (_name, rule, lead, afterMs) => {
    const { t, program } = await programWith(rule, 'hold');
    await t.lead(program, 'cust_1', lead);
    t.clock.set(new Date(Date.parse('2026-03-01T12:00:00.000Z') + afterMs).toISOString());
    const sale = await t.sale(program);
    expect((await commission(t, program.id, sale.commission_id)).status).toBe('pending');
    expect(await t.count('fraud_events')).toBe(0);
  });

  test('refund_rate: 30 % of ten sales, or 40 % of nine, does not fire', async () => {
    const { t, program } = await programWith('refundRate', 'hold');
    await t.lead(program, 'cust_1');
    for (let i = 1; i <= 9; i++) await t.sale(program, { transaction_id: `in_${i}` });
    for (let i = 1; i <= 4; i++) await t.post('/api/v1/track/refund', { transaction_id: `in_${i}`, refund_id: `re_${i}` }, program.apiKey);
    await t.sale(program, { transaction_id: 'in_10' }); // 4 of 9
    expect(await t.count('fraud_events')).toBe(0);
    const program2 = await programWith('refundRate', 'hold');
    await program2.t.lead(program2.program, 'cust_1');
    for (let i = 1; i <= 10; i++) await program2.t.sale(program2.program, { transaction_id: `in_${i}` });
    for (let i = 1; i <= 3; i++) await program2.t.post('/api/v1/track/refund', { transaction_id: `in_${i}`, refund_id: `re_${i}` }, program2.program.apiKey);
    await program2.t.sale(program2.program, { transaction_id: 'in_11' }); // 3 of 10
    expect(await program2.t.count('fraud_events')).toBe(0);
  });

  test('with the defaults, a self-referral is held and a fast conversion flagged: two events on one commission', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    await t.admin('PATCH', `/partners/${program.partnerId}`, { email: 'ann@example.com' });
    await t.lead(program, 'cust_1', { email: 'Ann@Example.com' });
    const sale = await t.sale(program);
    const events = (await fraudEvents(t, program.id, 'held')).body;
    expect(events.map((e: { rule: string; action: string }) => [e.rule, e.action])).toEqual([['fast_conversion', 'flag'], ['self_referral', 'hold']]);
    expect((await commission(t, program.id, sale.commission_id)).status).toBe('on_hold');
  });
});

/** A program whose self-referral rule holds, with one held commission of 10.00 USD (30 hold days). */
async function held() {
  const { t, program } = await programWith('selfReferral', 'hold');
  await FIRING.selfReferral.setup(t, program);
  const sale = await t.sale(program);
  return { t, program, commissionId: sale.commission_id as number, saleId: sale.sale_id as number };
}

describe('held commissions', () => {
  test('never approved or paid: past the hold date it stays on_hold, approve is 409, no payout takes it', async () => {
    const { t, program, commissionId } = await held();
    t.clock.advanceDays(45);
    expect((await commission(t, program.id, commissionId)).status).toBe('on_hold');
    const approve = await call(t, 'POST', `/api/programs/${program.id}/commissions/approve`, { ids: [commissionId] });
    expect(approve.status).toBe(409);
    expect(approve.body.error.message).toBe(`Cannot approve commission ${commissionId} (on_hold); nothing was changed`);
    expect((await call(t, 'GET', `/api/programs/${program.id}/payouts/preview`)).body).toEqual({ payouts: [], waiting: [] });
    const created = await call(t, 'POST', `/api/programs/${program.id}/payouts`, {});
    expect(created.body.payouts).toEqual([]);
    expect((await commission(t, program.id, commissionId)).status).toBe('on_hold');
  });

  test('release: back to pending, then approved once the hold date has passed; commission.updated is sent', async () => {
    const { t, program, commissionId } = await held();
    await call(t, 'POST', `/api/programs/${program.id}/webhook-endpoints`, { url: 'http://127.0.0.1:9/hooks' });
    const released = await call(t, 'POST', `/api/programs/${program.id}/fraud/release`, { commissionIds: [commissionId] });
    expect(released.status).toBe(200);
    expect(released.body).toMatchObject([{ id: commissionId, status: 'pending', holdUntil: '2026-03-31T12:05:00.000Z', reason: null }]);
    const updates = await t.store.read((sql) => sql.all<{ body: string }>("SELECT body FROM outbox_messages WHERE type = 'commission.updated'"));
    expect(updates.map((m) => JSON.parse(m.body).data)).toMatchObject([{ id: commissionId, status: 'pending' }]);
    expect((await fraudEvents(t, program.id, 'held')).body).toEqual([]);
    t.clock.advanceDays(31);
    expect((await commission(t, program.id, commissionId)).status).toBe('approved');
    expect((await call(t, 'POST', `/api/programs/${program.id}/payouts`, {})).body.payouts).toHaveLength(1);
  });

  test('reject: rejected with the reason; a second release or reject is 409, an unknown id 404, and nothing changes', async () => {
    const { t, program, commissionId } = await held();
    const rejected = await call(t, 'POST', `/api/programs/${program.id}/fraud/reject`, { commissionIds: [commissionId], reason: 'own purchase' });
    expect(rejected.body).toMatchObject([{ id: commissionId, status: 'rejected', reason: 'own purchase' }]);
    const again = await call(t, 'POST', `/api/programs/${program.id}/fraud/release`, { commissionIds: [commissionId] });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe(`Cannot release commission ${commissionId} (rejected); nothing was changed`);
    const unknown = await call(t, 'POST', `/api/programs/${program.id}/fraud/reject`, { commissionIds: [commissionId, 99] });
    expect(unknown.status).toBe(404);
    expect((await commission(t, program.id, commissionId)).status).toBe('rejected');
    const events = (await fraudEvents(t, program.id)).body;
    expect(events.map((e: { commissionStatus: string }) => e.commissionStatus)).toEqual(['rejected']);
  });

  test('release of a commission that is not held is 409', async () => {
    const { t, program } = await programWith();
    await t.lead(program, 'cust_1');
    const sale = await t.sale(program);
    const response = await call(t, 'POST', `/api/programs/${program.id}/fraud/release`, { commissionIds: [sale.commission_id] });
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('invalid_status');
  });

  test("a full refund of a held commission's sale reverses it", async () => {
    const { t, program, commissionId } = await held();
    const refund = await t.post('/api/v1/track/refund', { transaction_id: 'in_1', refund_id: 're_1' }, program.apiKey);
    expect(refund.json()).toMatchObject({ commission_id: commissionId, commission_status: 'reversed' });
  });

  test('a partial refund recomputes a held commission, which stays held', async () => {
    const { t, program, commissionId } = await held();
    const refund = await t.post('/api/v1/track/refund', { transaction_id: 'in_1', refund_id: 're_1', amount_cents: 2000 }, program.apiKey);
    expect(refund.json()).toMatchObject({ commission_id: commissionId, commission_status: 'on_hold' });
    expect((await commission(t, program.id, commissionId)).amountCents).toBe(600);
  });
});
