import type { Sql } from '../store/db.js';
import { appendLeadRewards, enrollmentGroups } from '../store/groups.js';
import { insertCommissions, type CommissionRow } from '../store/sales.js';
import type { CustomerRow } from '../store/tracking.js';
import { holdUntil } from './commission.js';
import type { Deps } from './deps.js';
import { groupOf } from './groups.js';
import { notifyCommissions } from './mail/notifications.js';
import { emit } from './outbound/events.js';
import { commissionCreatedEvent } from './outbound/payloads.js';
import { cachedPrograms } from './program-cache.js';

/** The currency of lead rewards: a program has no currency of its own (docs/groups.md#lead-rewards). */
const LEAD_REWARD_CURRENCY = 'USD';

/**
 * The lead rewards of the customers a batch of leads created, in its transaction: a `lead`
 * commission for each whose partner's group has a lead reward, with its event and mail
 * (docs/groups.md#lead-rewards). Reads the enrollments' groups in one statement, and only when a
 * program of the batch has a lead reward; `movedTo` names the groups the batch moved enrollments to
 * before they are stored.
 */
export async function rewardLeads(deps: Deps, sql: Sql, customers: readonly CustomerRow[], movedTo: ReadonlyMap<number, number> = new Map()): Promise<void> {
  const programs = await cachedPrograms(deps.store, sql, [...new Set(customers.map((c) => c.program_id))]);
  const rewarding = customers.filter((c) => [...(programs.get(c.program_id)?.groups.values() ?? [])].some((g) => g.lead_reward_cents !== null));
  if (rewarding.length === 0) return;
  const enrollments = await enrollmentGroups(sql, [...new Set(rewarding.map((c) => c.partner_program_id))]);
  const now = deps.clock.now();
  const commissions: CommissionRow[] = [];
  const rewarded: Array<{ customer_id: number; commission_id: number }> = [];
  const partners = new Map<number, number>();
  for (const customer of rewarding) {
    const enrollment = enrollments.get(customer.partner_program_id)!;
    const group = groupOf(programs.get(customer.program_id)!, movedTo.get(customer.partner_program_id) ?? enrollment.group_id);
    if (!group?.lead_reward_cents) continue;
    commissions.push({
      id: 0, program_id: customer.program_id, sale_id: null, partner_program_id: customer.partner_program_id, amount_cents: group.lead_reward_cents,
      currency: LEAD_REWARD_CURRENCY, status: 'pending', hold_until: holdUntil(now, group.hold_days), created_at: now, type: 'lead', payout_id: null,
      paid_at: null, reason: null, percent_bp: null,
    });
    rewarded.push({ customer_id: customer.id, commission_id: 0 });
    partners.set(customer.partner_program_id, enrollment.partner_id);
  }
  if (commissions.length === 0) return;
  const first = await deps.store.nextId(sql, 'commissions', commissions.length);
  commissions.forEach((c, i) => {
    c.id = first + i;
    rewarded[i]!.commission_id = c.id;
  });
  await insertCommissions(sql, commissions);
  await appendLeadRewards(sql, rewarded);
  await emit(deps, sql, commissions.map((c) => commissionCreatedEvent(c, partners.get(c.partner_program_id)!)));
  await notifyCommissions(deps, sql, commissions);
}
