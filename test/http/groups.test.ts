import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ADMIN_TOKEN, buildTestApp, getReport, withCustomer, type ProgramFixture, type TestApp } from '../helpers/app.js';

/**
 * Partner groups (docs/groups.md): the groups API and its errors, the reward a sale earns from a
 * product rule, a group or the program, a group's hold days and recurring months, and the
 * automatic moves across thresholds.
 */

const groupsUrl = (programId: number) => `/api/programs/${programId}/groups`;

async function call(t: TestApp, method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, payload?: object) {
  const response = await t.app.inject({ method, url, payload, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return { status: response.statusCode, body: response.json() };
}

async function addGroup(t: TestApp, programId: number, body: object) {
  const added = await call(t, 'POST', groupsUrl(programId), body);
  expect(added.status).toBe(200);
  return added.body as { id: number };
}

const setGroup = (t: TestApp, program: ProgramFixture, groupId: number, partnerId = program.partnerId) =>
  call(t, 'PUT', `/api/programs/${program.id}/partners/${partnerId}/group`, { groupId });

/** The commissions of the program, oldest first. */
const commissions = (t: TestApp) =>
  t.store.read((sql) => sql.all<{ amount_cents: number; hold_until: Date; sale_id: number }>('SELECT amount_cents, hold_until, sale_id FROM commissions ORDER BY id'));

/** What every table groups touch holds: a failed request must leave it as it was. */
const snapshot = (t: TestApp) =>
  t.store.read(async (sql) => [
    await sql.all('SELECT * FROM partner_groups ORDER BY id'),
    await sql.all('SELECT id, group_id FROM partner_programs ORDER BY id'),
    await sql.all('SELECT * FROM group_moves ORDER BY id'),
  ]);

describe('the groups API', () => {
  test('add, list, update and remove; the first group is the default and counts the partners in no group', async () => {
    const { t, program } = await withCustomer({ holdDays: 30 });
    const gold = await call(t, 'POST', groupsUrl(program.id), { name: 'Gold', commissionPercent: 25, leadRewardCents: 500 });
    expect(gold).toEqual({
      status: 200,
      body: {
        id: 1, programId: program.id, name: 'Gold', isDefault: true, commission: { type: 'percent', percent: 25 }, holdDays: 30, recurringMonths: null,
        leadRewardCents: 500, nextGroupId: null, threshold: null, partners: 1, createdAt: '2026-03-01T12:00:00.000Z',
      },
    });
    const starter = await addGroup(t, program.id, {
      name: 'Starter', commissionFlatCents: 300, holdDays: 7, recurringMonths: 12, nextGroupId: 1, threshold: { metric: 'conversions', value: 2, window: '30d' },
    });
    const changed = await call(t, 'PATCH', `${groupsUrl(program.id)}/${starter.id}`, { default: true, commissionFlatCents: null, holdDays: 10 });
    expect(changed.body).toMatchObject({ isDefault: true, commission: null, holdDays: 10, recurringMonths: 12, partners: 1 });
    const listed = await call(t, 'GET', groupsUrl(program.id));
    expect(listed.body.map((g: { name: string; isDefault: boolean; partners: number }) => [g.name, g.isDefault, g.partners])).toEqual([
      ['Gold', false, 0],
      ['Starter', true, 1],
    ]);
  });

  test.each([
    ['a percentage over 100', { name: 'X', commissionPercent: 101 }, 'commissionPercent'],
    ['a percentage of 0', { name: 'X', commissionPercent: 0 }, 'commissionPercent'],
    ['a negative flat amount', { name: 'X', commissionFlatCents: -1 }, 'commissionFlatCents'],
    ['a negative lead reward', { name: 'X', leadRewardCents: -5 }, 'leadRewardCents'],
    ['both rewards', { name: 'X', commissionPercent: 10, commissionFlatCents: 100 }, 'commissionFlatCents'],
    ['a threshold without a next group', { name: 'X', threshold: { metric: 'revenue', value: 100, window: 'all' } }, 'nextGroupId'],
    ['a next group without a threshold', { name: 'X', nextGroupId: 1 }, 'threshold'],
    ['an unknown threshold metric', { name: 'X', nextGroupId: 1, threshold: { metric: 'clicks', value: 1, window: 'all' } }, 'threshold.metric'],
    ['no name', { commissionPercent: 10 }, 'name'],
  ])('%s is 400 naming the field, nothing changed', async (_name, body, field) => {
    const t = await buildTestApp();
    const program = await t.program();
    await addGroup(t, program.id, { name: 'Base' });
    const before = await snapshot(t);
    const response = await call(t, 'POST', groupsUrl(program.id), body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_request');
    expect(response.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
    expect(await snapshot(t)).toEqual(before);
  });

  test('a group of another program is 404, as next group, as the group of a partner and as moveTo; nothing changed', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const other = await t.program();
    const mine = await addGroup(t, program.id, { name: 'Mine' });
    const theirs = await addGroup(t, other.id, { name: 'Theirs' });
    const before = await snapshot(t);
    const next = await call(t, 'POST', groupsUrl(program.id), { name: 'X', nextGroupId: theirs.id, threshold: { metric: 'revenue', value: 1, window: 'all' } });
    expect(next.status).toBe(404);
    expect(next.body.error.message).toBe(`Group ${theirs.id} not found in program ${program.id}`);
    expect((await setGroup(t, program, theirs.id)).status).toBe(404);
    expect((await call(t, 'PATCH', `${groupsUrl(program.id)}/${theirs.id}`, { name: 'Y' })).status).toBe(404);
    expect((await call(t, 'DELETE', `${groupsUrl(program.id)}/${mine.id}?moveTo=${theirs.id}`)).status).toBe(404);
    expect(await snapshot(t)).toEqual(before);
  });

  test('a name taken in the program is 409', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    await addGroup(t, program.id, { name: 'Gold' });
    const response = await call(t, 'POST', groupsUrl(program.id), { name: 'gold' });
    expect(response.status).toBe(409);
    expect(response.body.error.message).toBe(`Group name Gold is taken in program ${program.id}`);
  });

  test('removing a group with partners is 409 unless they move; the moves are recorded', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const base = await addGroup(t, program.id, { name: 'Base' });
    const gold = await addGroup(t, program.id, { name: 'Gold', commissionPercent: 30 });
    const before = await snapshot(t);
    const refused = await call(t, 'DELETE', `${groupsUrl(program.id)}/${base.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toBe('Group Base has 1 partner(s): name the group they move to (moveTo)');
    expect(await snapshot(t)).toEqual(before);

    const removed = await call(t, 'DELETE', `${groupsUrl(program.id)}/${base.id}?moveTo=${gold.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ id: base.id, name: 'Base', partners: 1 });
    const listed = (await call(t, 'GET', groupsUrl(program.id))).body;
    expect(listed).toMatchObject([{ id: gold.id, isDefault: true, partners: 1 }]);
    const moves = await call(t, 'GET', `/api/programs/${program.id}/group-moves?partnerId=${program.partnerId}`);
    expect(moves.body).toEqual([
      { id: 1, programId: program.id, partnerId: program.partnerId, fromGroupId: base.id, toGroupId: gold.id, reason: 'manual', saleId: null, createdAt: '2026-03-01T12:00:00.000Z' },
    ]);
  });

  test('a group another group leads to cannot be removed', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const gold = await addGroup(t, program.id, { name: 'Gold' });
    await addGroup(t, program.id, { name: 'Starter', nextGroupId: gold.id, threshold: { metric: 'revenue', value: 100, window: 'all' } });
    const response = await call(t, 'DELETE', `${groupsUrl(program.id)}/${gold.id}?moveTo=2`);
    expect(response.status).toBe(409);
    expect(response.body.error.message).toBe('Group Starter leads to group Gold: change its next group first');
  });

  test('putting a partner in a group records the move once; the same group again moves nothing', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    await addGroup(t, program.id, { name: 'Base' });
    const gold = await addGroup(t, program.id, { name: 'Gold' });
    const moved = await setGroup(t, program, gold.id);
    expect(moved.body).toMatchObject({ partnerId: program.partnerId, groupId: gold.id, move: { fromGroupId: 1, toGroupId: gold.id, reason: 'manual' } });
    expect((await setGroup(t, program, gold.id)).body).toEqual({ partnerId: program.partnerId, groupId: gold.id, move: null });
    expect(await t.count('group_moves')).toBe(1);
    const stranger = await t.partner();
    expect((await setGroup(t, program, gold.id, stranger.id)).status).toBe(404);
  });
});

describe('which reward a sale earns (docs/groups.md#which-reward-a-sale-earns)', () => {
  test('product rule > group reward > program default; a group without a reward pays the program default', async () => {
    const { t, program } = await withCustomer({ commissionPercent: 10 });
    await t.admin('POST', `/programs/${program.id}/rules`, { productId: 'pro', commissionPercent: 30 });
    const sale = (id: string, productId?: string) => t.sale(program, { transaction_id: id, amount_cents: 10_000, product_id: productId });
    await sale('before-groups');
    const plain = await addGroup(t, program.id, { name: 'Plain' });
    await sale('plain-group');
    const gold = await addGroup(t, program.id, { name: 'Gold', commissionFlatCents: 700 });
    await setGroup(t, program, gold.id);
    await sale('gold');
    await sale('gold-pro', 'pro');
    await setGroup(t, program, plain.id);
    await sale('back-to-plain');
    expect((await commissions(t)).map((c) => c.amount_cents)).toEqual([1000, 1000, 700, 3000, 1000]);
  });

  test("the group's hold days and recurring months apply to its partners' sales", async () => {
    const { t, program } = await withCustomer({ holdDays: 30, recurringMonths: null, attributionWindowDays: 3650 });
    await addGroup(t, program.id, { name: 'Short', holdDays: 3, recurringMonths: 1 });
    const first = await t.sale(program, { transaction_id: 'inv_0', subscription_id: 'sub_1', sale_type: 'subscription' });
    t.clock.set('2026-03-20T12:00:00.000Z');
    const within = await t.sale(program, { transaction_id: 'inv_1', subscription_id: 'sub_1', sale_type: 'subscription', is_recurring: true });
    t.clock.set('2026-04-02T12:00:00.000Z');
    const past = await t.sale(program, { transaction_id: 'inv_2', subscription_id: 'sub_1', sale_type: 'subscription', is_recurring: true });
    expect([first.commission_id, within.commission_id, past.commission_id].map((id) => id !== null)).toEqual([true, true, false]);
    expect((await commissions(t)).map((c) => c.hold_until.toISOString())).toEqual(['2026-03-04T12:00:00.000Z', '2026-03-23T12:00:00.000Z']);
  });
});

describe('automatic moves (docs/groups.md#automatic-moves)', () => {
  /** A program paying 10 % in Starter, which leads to Gold (25 %) at the threshold. */
  async function ladder(threshold: object) {
    const { t, program } = await withCustomer({ commissionPercent: 5, attributionWindowDays: 3650 });
    const starter = await addGroup(t, program.id, { name: 'Starter', commissionPercent: 10 });
    const gold = await addGroup(t, program.id, { name: 'Gold', commissionPercent: 25 });
    await call(t, 'PATCH', `${groupsUrl(program.id)}/${starter.id}`, { nextGroupId: gold.id, threshold });
    return { t, program, starter, gold };
  }

  /** A sale by a new customer of the program's partner (a conversion), or by cust_1 again. */
  async function sale(t: TestApp, program: ProgramFixture, id: string, amount: number, newCustomer = true) {
    if (newCustomer) await t.lead(program, `cust_${id}`);
    return t.sale(program, { transaction_id: id, amount_cents: amount, customer_key: newCustomer ? `cust_${id}` : 'cust_1' });
  }

  test('conversions over 30 days: the crossing sale keeps the old reward, the next earns the new one; sales older than 30 days do not count', async () => {
    const { t, program, starter, gold } = await ladder({ metric: 'conversions', value: 2, window: '30d' });
    await sale(t, program, 'a', 10_000); // a conversion on day 0
    t.clock.set('2026-04-01T12:00:00.000Z'); // day 31: the first falls out of the window
    await sale(t, program, 'b', 10_000);
    expect(await t.count('group_moves')).toBe(0);
    const crossing = await sale(t, program, 'c', 10_000);
    await sale(t, program, 'd', 10_000, false);
    expect((await commissions(t)).map((c) => c.amount_cents)).toEqual([1000, 1000, 1000, 2500]);
    const moves = await call(t, 'GET', `/api/programs/${program.id}/group-moves`);
    expect(moves.body).toEqual([
      {
        id: 1, programId: program.id, partnerId: program.partnerId, fromGroupId: starter.id, toGroupId: gold.id, reason: 'threshold', saleId: crossing.sale_id,
        createdAt: '2026-04-01T12:00:00.000Z',
      },
    ]);
  });

  test('a second sale of a customer is no new conversion', async () => {
    const { t, program } = await ladder({ metric: 'conversions', value: 2, window: 'all' });
    await sale(t, program, 'a', 100, false);
    await sale(t, program, 'b', 100, false);
    await sale(t, program, 'c', 100, false);
    expect(await t.count('group_moves')).toBe(0);
  });

  test('revenue all time: moved at the exact sale that reaches it, not before; a refund after the move does not move back', async () => {
    const { t, program, gold } = await ladder({ metric: 'revenue', value: 30_000, window: 'all' });
    await sale(t, program, 'a', 19_999, false);
    t.clock.set('2026-06-01T12:00:00.000Z');
    await sale(t, program, 'b', 10_000, false); // 29,999: one cent short
    expect(await t.count('group_moves')).toBe(0);
    const crossing = await sale(t, program, 'c', 1, false); // exactly 30,000
    expect(await t.count('group_moves')).toBe(1);
    const refund = await t.post('/api/v1/track/refund', { transaction_id: 'c', refund_id: 'r1' }, program.apiKey);
    expect(refund.statusCode).toBe(200);
    await t.post('/api/v1/track/refund', { transaction_id: 'b', refund_id: 'r2' }, program.apiKey);
    await sale(t, program, 'd', 10_000, false);
    expect((await commissions(t)).map((c) => c.amount_cents)).toEqual([2000, 1000, 0, 2500]);
    const listed = (await call(t, 'GET', groupsUrl(program.id))).body;
    expect(listed.find((g: { id: number }) => g.id === gold.id).partners).toBe(1);
    expect((await call(t, 'GET', `/api/programs/${program.id}/group-moves`)).body.map((m: { saleId: number }) => m.saleId)).toEqual([crossing.sale_id]);
  });

  test('revenue over 30 days counts only the sales received in the 30 days before', async () => {
    const { t, program } = await ladder({ metric: 'revenue', value: 10_000, window: '30d' });
    await sale(t, program, 'a', 9_000, false);
    t.clock.set('2026-03-31T12:00:01.000Z'); // 30 days and 1 s later: the first sale is out
    await sale(t, program, 'b', 9_000, false);
    expect(await t.count('group_moves')).toBe(0);
    await sale(t, program, 'c', 1_000, false);
    expect(await t.count('group_moves')).toBe(1);
  });

  test('revenue all time, remembered between batches: a batch that failed and ran again counts its sales once, a refused duplicate not at all', async () => {
    const { t, program } = await ladder({ metric: 'revenue', value: 10_000, window: 'all' });
    await sale(t, program, 'a', 6_000, false);
    const duplicate = t.app.inject({
      method: 'POST', url: '/api/v1/track/sale', headers: { authorization: `Bearer ${program.apiKey}` },
      payload: { transaction_id: 'a', amount_cents: 9_000, customer_key: 'cust_1' },
    });
    const [refused] = await Promise.all([duplicate, sale(t, program, 'b', 3_000, false)]);
    expect(refused.statusCode).toBe(409);
    expect(await t.count('group_moves')).toBe(0); // 6,000 + 3,000
    const crossing = await sale(t, program, 'c', 1_000, false);
    const moves = (await call(t, 'GET', `/api/programs/${program.id}/group-moves`)).body;
    expect(moves.map((m: { saleId: number }) => m.saleId)).toEqual([crossing.sale_id]);
  });

  test('conversions all time, and a threshold already reached by the next group moves the partner on at once', async () => {
    const { t, program, gold } = await ladder({ metric: 'conversions', value: 1, window: 'all' });
    const platinum = await addGroup(t, program.id, { name: 'Platinum', commissionPercent: 40 });
    await call(t, 'PATCH', `${groupsUrl(program.id)}/${gold.id}`, { nextGroupId: platinum.id, threshold: { metric: 'revenue', value: 500, window: 'all' } });
    await sale(t, program, 'a', 1_000);
    await sale(t, program, 'b', 1_000, false);
    expect((await commissions(t)).map((c) => c.amount_cents)).toEqual([100, 400]);
    expect((await call(t, 'GET', `/api/programs/${program.id}/group-moves`)).body.map((m: { fromGroupId: number; toGroupId: number }) => [m.fromGroupId, m.toGroupId])).toEqual([
      [gold.id, platinum.id],
      [1, gold.id],
    ]);
  });

  test("a customer a code creates in the batch that moved their partner earns the new group's lead reward", async () => {
    const { t, program, gold } = await ladder({ metric: 'revenue', value: 1_000, window: 'all' });
    await call(t, 'PATCH', `${groupsUrl(program.id)}/${gold.id}`, { leadRewardCents: 700 });
    expect((await call(t, 'POST', `/api/programs/${program.id}/codes`, { partnerId: program.partnerId, code: 'GOLD' })).status).toBe(200);
    // One batch: the first sale crosses Starter's threshold, the second's customer is created by the code.
    const answers = await Promise.all([
      t.sale(program, { transaction_id: 'a', amount_cents: 1_000 }),
      t.sale(program, { transaction_id: 'b', amount_cents: 1_000, customer_key: 'new_1', coupon_code: 'GOLD' }),
    ]);
    expect(answers.every((a) => a.commission_id !== null)).toBe(true);
    expect(await t.store.read((sql) => sql.all("SELECT type, amount_cents FROM commissions WHERE type = 'lead'"))).toEqual([{ type: 'lead', amount_cents: 700 }]);
  });

  test('sales of one batch: the sale after the crossing one in the same batch earns the new reward', async () => {
    const { t, program } = await ladder({ metric: 'revenue', value: 1_000, window: 'all' });
    const answers = await Promise.all(['a', 'b', 'c'].map((id) => t.sale(program, { transaction_id: id, amount_cents: 1_000 })));
    expect(answers.every((a) => a.commission_id !== null)).toBe(true);
    expect((await commissions(t)).map((c) => c.amount_cents)).toEqual([100, 250, 250]);
    expect(await t.count('group_moves')).toBe(1);
  });
});

describe('lead rewards (docs/groups.md#lead-rewards)', () => {
  /** A program whose partner is in a group with a lead reward of 5.00 and 7 hold days. */
  async function rewarding() {
    const t = await buildTestApp();
    const program = await t.program({ holdDays: 30, commissionPercent: 10 });
    await addGroup(t, program.id, { name: 'Agencies', leadRewardCents: 500, holdDays: 7 });
    return { t, program };
  }

  const leadCommissions = (t: TestApp) =>
    t.store.read((sql) => sql.all<{ id: number; sale_id: number | null; amount_cents: number; currency: string; hold_until: Date }>(
      "SELECT id, sale_id, amount_cents, currency, hold_until FROM commissions WHERE type = 'lead' ORDER BY id",
    ));

  test('a lead earns the group its lead reward: a lead commission without a sale, held for the group hold days, with its event', async () => {
    const { t, program } = await rewarding();
    expect((await call(t, 'POST', `/api/programs/${program.id}/webhook-endpoints`, { url: 'https://example.com/hooks' })).status).toBe(200);
    const { customerId } = await t.lead(program, 'cust_1');
    const rows = await leadCommissions(t);
    expect(rows).toEqual([{ id: 1, sale_id: null, amount_cents: 500, currency: 'USD', hold_until: new Date('2026-03-08T12:00:00.000Z') }]);
    expect(await t.count('lead_rewards', `customer_id = ${customerId}`)).toBe(1);
    const listed = await call(t, 'GET', `/api/programs/${program.id}/commissions`);
    expect(listed.body).toMatchObject([{ id: 1, partnerId: program.partnerId, saleId: null, type: 'lead', amountCents: 500, currency: 'USD', status: 'pending' }]);
    const events = await t.store.read((sql) => sql.all<{ body: string }>("SELECT body FROM outbox_messages WHERE type = 'commission.created'"));
    expect(events.map((e) => JSON.parse(e.body).data)).toMatchObject([{ id: 1, saleId: null, type: 'lead', amountCents: 500 }]);
  });

  test('once per customer: the same customer key again, or twice at once, pays one reward; a sale of the customer earns its sale commission', async () => {
    const { t, program } = await rewarding();
    const clickId = await t.click(program);
    await Promise.all([1, 2, 3].map(() => t.post('/api/v1/track/lead', { customer_key: 'cust_1', click_id: clickId }, program.apiKey)));
    await t.lead(program, 'cust_1', { click_id: clickId });
    await t.sale(program, { amount_cents: 10_000 });
    expect((await leadCommissions(t)).length).toBe(1);
    expect(await t.count('commissions', "type = 'sale'")).toBe(1);
  });

  test('a customer a promotion code creates with its first sale earns the lead reward once, beside the sale commission', async () => {
    const { t, program } = await rewarding();
    expect((await call(t, 'POST', `/api/programs/${program.id}/codes`, { partnerId: program.partnerId, code: 'SUMMER20' })).status).toBe(200);
    const first = await t.post('/api/v1/track/sale', { transaction_id: 'in_1', amount_cents: 10_000, customer_key: 'new_1', coupon_code: 'SUMMER20' }, program.apiKey);
    expect(first.statusCode).toBe(200);
    const second = await t.post('/api/v1/track/sale', { transaction_id: 'in_2', amount_cents: 10_000, customer_key: 'new_1', coupon_code: 'SUMMER20' }, program.apiKey);
    expect(second.statusCode).toBe(200);
    expect(await leadCommissions(t)).toEqual([{ id: 2, sale_id: null, amount_cents: 500, currency: 'USD', hold_until: new Date('2026-03-08T12:00:00.000Z') }]);
    expect(await t.count('commissions', "type = 'sale'")).toBe(2);
    const customerId = (await t.store.read((sql) => sql.one<{ id: number }>("SELECT id FROM customers WHERE customer_key = 'new_1'")))!.id;
    expect(await t.count('lead_rewards', `customer_id = ${customerId}`)).toBe(1);
  });

  test('a group without a lead reward, or a program without groups, pays nothing for a lead', async () => {
    const t = await buildTestApp();
    const plain = await t.program();
    await t.lead(plain, 'cust_1');
    const grouped = await t.program();
    await addGroup(t, grouped.id, { name: 'No lead reward', commissionPercent: 20 });
    await t.lead(grouped, 'cust_2');
    expect(await t.count('commissions')).toBe(0);
  });

  test("a lead commission counts in the reports and the export like any other, and a refund of the customer's sale leaves it", async () => {
    const { t, program } = await rewarding();
    await t.lead(program, 'cust_1');
    await t.sale(program, { transaction_id: 'in_1', amount_cents: 10_000 });
    expect((await t.post('/api/v1/track/refund', { transaction_id: 'in_1', refund_id: 'r1' }, program.apiKey)).statusCode).toBe(200);
    // The sale's commission is reversed with its refund in full; the lead's $5 stays.
    expect(await t.store.read((sql) => sql.all('SELECT type, amount_cents, status FROM commissions ORDER BY id'))).toEqual([
      { type: 'lead', amount_cents: 500, status: 'pending' },
      { type: 'sale', amount_cents: 1000, status: 'reversed' },
    ]);
    const report = (await getReport(t, `/api/tracking/performance/${program.id}?period=7d`)).json();
    expect(report.metrics.totalPartnersCommission).toBe(5);
    const partners = (await getReport(t, `/api/tracking/performance/${program.id}/partners?period=7d`)).json();
    expect(partners.data).toMatchObject([{ partnerId: program.partnerId, commission: 5 }]);
    const exported = (await call(t, 'GET', `/api/programs/${program.id}/export?table=commissions&format=json`)).body as Array<Record<string, unknown>>;
    expect(exported.map((c) => [c.type, Number(c.amount_cents), c.status, c.sale_id])).toEqual([['lead', 500, 'pending', null], ['sale', 1000, 'reversed', 1]]);
  });

  test('a lead commission is approved after its hold and paid like any other', async () => {
    const { t, program } = await rewarding();
    await t.lead(program, 'cust_1');
    t.clock.set('2026-03-09T12:00:00.000Z');
    const payout = await call(t, 'POST', `/api/programs/${program.id}/payouts`);
    expect(payout.status).toBe(200);
    expect(payout.body.payouts).toMatchObject([{ partnerId: program.partnerId, currency: 'USD', amountCents: 500, commissionIds: [1] }]);
  });
});

describe('the rule preview (docs/groups.md#rule-preview)', () => {
  const previewUrl = (programId: number, query: string) => `/api/programs/${programId}/preview?${query}`;

  /** Every row of the tables a preview reads, and the outbox: it must leave them as they were. */
  const everything = (t: TestApp) =>
    t.store.read(async (sql) => {
      const tables = ['sale_events', 'refunds', 'commissions', 'partner_programs', 'partner_groups', 'group_moves', 'outbox_messages'];
      return Promise.all(tables.map((table) => sql.all(`SELECT * FROM ${table} ORDER BY 1`)));
    });

  test('a percentage, a flat amount and a group over the period, per partner beside what they earned', async () => {
    const { t, program } = await withCustomer({ commissionPercent: 10, attributionWindowDays: 3650 });
    // The partner's group (the default) pays 2.50 a sale: what the sales earned.
    const gold = await addGroup(t, program.id, { name: 'Gold', commissionFlatCents: 250 });
    await t.sale(program, { transaction_id: 'old', amount_cents: 50_000 });
    t.clock.set('2026-06-15T12:00:00.000Z'); // the first sale is now out of 30d
    await t.sale(program, { transaction_id: 'a', amount_cents: 10_005 });
    await t.sale(program, { transaction_id: 'b', amount_cents: 4_000 });
    await t.post('/api/v1/track/refund', { transaction_id: 'a', refund_id: 'r1', amount_cents: 5 }, program.apiKey);
    await t.post('/api/v1/track/refund', { transaction_id: 'b', refund_id: 'r2' }, program.apiKey);
    const before = await everything(t);

    const percent = await call(t, 'GET', previewUrl(program.id, 'period=30d&commissionPercent=12.5'));
    expect(percent).toEqual({
      status: 200,
      body: {
        period: '30d', from: '2026-05-17T00:00:00.000Z', to: '2026-06-15T23:59:59.999Z', rule: { type: 'percent', percent: 12.5 }, recurringMonths: null,
        partners: [{ partnerId: program.partnerId, name: 'Partner', sales: 2, revenueCents: 10_000, actualCents: 250, previewCents: 1_250 }],
        totals: { sales: 2, revenueCents: 10_000, actualCents: 250, previewCents: 1_250 },
      },
    });
    const flat = await call(t, 'GET', previewUrl(program.id, `period=all&groupId=${gold.id}`));
    expect(flat.body).toMatchObject({ rule: { type: 'flat', flatCents: 250 }, totals: { sales: 3, revenueCents: 60_000, actualCents: 500, previewCents: 500 } });
    const program10 = await call(t, 'GET', previewUrl(program.id, 'period=7d'));
    expect(program10.body.rule).toEqual({ type: 'percent', percent: 10 });
    expect(await everything(t)).toEqual(before);
  });

  test("renewals earn for the recurring months asked for, the group's, or the program's, counted from the subscription's first sale", async () => {
    const { t, program } = await withCustomer({ commissionPercent: 10, recurringMonths: 2, attributionWindowDays: 3650 });
    const renewal = { subscription_id: 'sub_1', sale_type: 'subscription', amount_cents: 10_000 };
    await t.sale(program, { ...renewal, transaction_id: 'inv_0' });
    t.clock.set('2026-04-01T12:00:00.000Z');
    await t.sale(program, { ...renewal, transaction_id: 'inv_1', is_recurring: true });
    t.clock.set('2026-05-02T12:00:00.000Z');
    const late = await t.sale(program, { ...renewal, transaction_id: 'inv_2', is_recurring: true });
    expect(late.commission_id).toBeNull(); // past the program's two months
    await t.sale(program, { transaction_id: 'one_off', amount_cents: 10_000 });
    const short = await addGroup(t, program.id, { name: 'Short', commissionPercent: 10, recurringMonths: 1 });
    const before = await everything(t);

    const preview = async (query: string) => (await call(t, 'GET', previewUrl(program.id, `period=all&${query}`))).body;
    expect(await preview('commissionPercent=20')).toMatchObject({ recurringMonths: 2, totals: { sales: 4, revenueCents: 40_000, actualCents: 3_000, previewCents: 6_000 } });
    expect(await preview('commissionPercent=20&recurringMonths=0')).toMatchObject({ recurringMonths: 0, totals: { previewCents: 4_000 } });
    expect(await preview('commissionPercent=20&recurringMonths=3')).toMatchObject({ recurringMonths: 3, totals: { previewCents: 8_000 } });
    expect(await preview('commissionPercent=20&everyRenewal=true')).toMatchObject({ recurringMonths: null, totals: { previewCents: 8_000 } });
    // One month from 1 March 12:00 ends at 1 April 12:00: the renewal received then no longer earns, as when it was recorded.
    expect(await preview(`groupId=${short.id}`)).toMatchObject({ rule: { type: 'percent', percent: 10 }, recurringMonths: 1, totals: { previewCents: 2_000 } });
    expect(await preview(`groupId=${short.id}&recurringMonths=2`)).toMatchObject({ recurringMonths: 2, totals: { previewCents: 3_000 } });
    expect(await everything(t)).toEqual(before);
  });

  test('large sales are computed exactly to the cent, refunds included', async () => {
    const { t, program } = await withCustomer({ commissionPercent: 10 });
    const cents = [90_071_992_547_409, 50_000_000_000, 49_999_999_999, 123_456_789_012_345];
    for (const [i, amount] of cents.entries()) await t.sale(program, { transaction_id: `big_${i}`, amount_cents: amount });
    await t.post('/api/v1/track/refund', { transaction_id: 'big_3', refund_id: 'r1', amount_cents: 1 }, program.apiKey);
    const left = [...cents.slice(0, 3), cents[3]! - 1];
    const expected = left.reduce((sum, c) => sum + (BigInt(c) * 3333n + 5000n) / 10000n, 0n);
    const answer = await call(t, 'GET', previewUrl(program.id, 'period=7d&commissionPercent=33.33'));
    expect(BigInt(answer.body.totals.previewCents)).toBe(expected);
  });

  test.each([
    ['a percentage over 100', 'commissionPercent=100.5', 400, 'commissionPercent'],
    ['a negative flat amount', 'commissionFlatCents=-1', 400, 'commissionFlatCents'],
    ['two rewards', 'commissionPercent=10&commissionFlatCents=100', 400, 'commissionFlatCents'],
    ['an unknown period', 'period=1y', 400, 'period'],
    ['recurring months over 1200', 'recurringMonths=1201', 400, 'recurringMonths'],
    ['recurring months and every renewal', 'recurringMonths=3&everyRenewal=true', 400, 'everyRenewal'],
  ])('%s is 400 naming the field', async (_name, query, status, field) => {
    const t = await buildTestApp();
    const program = await t.program();
    const response = await call(t, 'GET', previewUrl(program.id, query));
    expect(response.status).toBe(status);
    expect(response.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual([field]);
  });

  test('a group of another program is 404', async () => {
    const t = await buildTestApp();
    const program = await t.program();
    const other = await t.program();
    const theirs = await addGroup(t, other.id, { name: 'Theirs', commissionPercent: 50 });
    expect((await call(t, 'GET', previewUrl(program.id, `groupId=${theirs.id}`))).status).toBe(404);
  });

  type SaleStep = { partner: 0 | 1; day: number; cents: number };
  type RefundStep = { pick: number; cents: number };
  const rule = fc.oneof(
    fc.record({ type: fc.constant('percent' as const), bp: fc.integer({ min: 1, max: 10_000 }) }),
    fc.record({ type: fc.constant('flat' as const), cents: fc.integer({ min: 0, max: 5_000 }) }),
  );

  test('over random sales and refunds the preview is what a reference computation gives, and writes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ partner: fc.constantFrom(0 as const, 1 as const), day: fc.integer({ min: 0, max: 120 }), cents: fc.integer({ min: 1, max: 1_000_000 }) }), { minLength: 1, maxLength: 10 }),
        fc.array(fc.record({ pick: fc.nat(), cents: fc.integer({ min: 1, max: 1_000_000 }) }), { maxLength: 6 }),
        rule,
        fc.constantFrom('7d', '30d', '90d', 'all'),
        async (saleSteps: SaleStep[], refundSteps: RefundStep[], previewRule, period) => {
          const t = await buildTestApp({ now: '2026-01-01T12:00:00.000Z' });
          const a = await t.program({ commissionPercent: 15, attributionWindowDays: 3650 });
          const partnerB = await t.partner({ name: 'Bea' });
          const b = { ...a, refCode: (await t.enroll(a.id, partnerB.id)).refCode };
          await t.lead(a, 'cust_a');
          await t.lead(b, 'cust_b');
          const sales = [...saleSteps].sort((x, y) => x.day - y.day).map((step, i) => ({ ...step, id: `in_${i}`, refunded: 0 }));
          for (const sale of sales) {
            t.clock.set(new Date(Date.parse('2026-01-01T12:00:00.000Z') + sale.day * 86_400_000).toISOString());
            await t.sale(a, { transaction_id: sale.id, amount_cents: sale.cents, customer_key: sale.partner === 0 ? 'cust_a' : 'cust_b' });
          }
          for (const [i, refund] of refundSteps.entries()) {
            const sale = sales[refund.pick % sales.length]!;
            const cents = Math.min(refund.cents, sale.cents - sale.refunded);
            if (cents === 0) continue;
            const answer = await t.post('/api/v1/track/refund', { transaction_id: sale.id, refund_id: `r${i}`, amount_cents: cents }, a.apiKey);
            expect(answer.statusCode).toBe(200);
            sale.refunded += cents;
          }
          const before = await everything(t);
          const query = previewRule.type === 'percent' ? `commissionPercent=${previewRule.bp / 100}` : `commissionFlatCents=${previewRule.cents}`;
          const answer = await call(t, 'GET', previewUrl(a.id, `period=${period}&${query}`));
          expect(answer.status).toBe(200);

          // The reference: the sales received from the first day of the period on, each earning the rule on what is left of it.
          const lastDay = Math.max(...sales.map((s) => s.day));
          const firstDay = period === 'all' ? 0 : lastDay - Number.parseInt(period, 10) + 1;
          const commissionsBySale = await t.store.read((sql) =>
            sql.all<{ transaction_id: string; amount_cents: number; status: string }>(
              'SELECT s.transaction_id, c.amount_cents, c.status FROM commissions c JOIN sale_events s ON s.id = c.sale_id',
            ),
          );
          const rows = [a.partnerId, partnerB.id].map((partnerId, partner) => {
            const mine = sales.filter((s) => s.partner === partner && s.day >= firstDay);
            const earned = (s: (typeof sales)[number]) => {
              const left = BigInt(s.cents - s.refunded);
              if (left === 0n) return 0;
              return previewRule.type === 'flat' ? previewRule.cents : Number((left * BigInt(previewRule.bp) + 5000n) / 10000n);
            };
            const actual = (s: (typeof sales)[number]) =>
              commissionsBySale.filter((c) => c.transaction_id === s.id && !['reversed', 'rejected'].includes(c.status)).reduce((sum, c) => sum + c.amount_cents, 0);
            return {
              partnerId, name: partner === 0 ? 'Partner' : 'Bea', sales: mine.length, revenueCents: mine.reduce((sum, s) => sum + s.cents - s.refunded, 0),
              actualCents: mine.reduce((sum, s) => sum + actual(s), 0), previewCents: mine.reduce((sum, s) => sum + earned(s), 0),
            };
          });
          const expected = rows.filter((r) => r.sales > 0).sort((x, y) => y.revenueCents - x.revenueCents || x.partnerId - y.partnerId);
          expect(answer.body.partners).toEqual(expected);
          expect(answer.body.totals.previewCents).toBe(expected.reduce((sum, r) => sum + r.previewCents, 0));
          expect(await everything(t)).toEqual(before);
          await t.app.close();
        },
      ),
      { seed: 20261127, numRuns: 12 },
    );
  }, 120_000);
});
