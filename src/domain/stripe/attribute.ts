import type { Sql } from '../../store/db.js';
import { programKey } from '../../store/program-key.js';
import { type AttributableCustomer, findCustomersByKeys, type Matches } from '../../store/tracking.js';
import * as webhooks from '../../store/webhooks.js';
import type { Match } from '../../store/webhooks.js';
import { findCustomersByClickIds } from '../tracking.js';
import type { AttributionHints } from './event-plan.js';

/** An event's attribution question: its program and what identifies its customer. */
type Wanted = { programId: number; hints: AttributionHints };

/** One step of the attribution order for a batch: what it looks for in an event's hints, and the customers of those values by programKey(program, value). */
type Step = {
  value(hints: AttributionHints): string | undefined;
  find(sql: Sql, values: Match[]): Promise<Matches>;
};

/**
 * The attribution fallback order (docs/webhooks.md#attribution-fallback-order): the click id, the e-mail against the lead, the provider's
 * customer id from an earlier attributed session, the customer key alone; renewals last through
 * the subscription's earlier sale. The first step that finds a customer wins.
 */
const steps: Step[] = [
  { value: (h) => h.clickId, find: (sql, clickIds) => findCustomersByClickIds(sql, clickIds.map((c) => c.value)) },
  { value: (h) => h.email?.toLowerCase() || undefined, find: webhooks.findCustomersByEmail },
  { value: (h) => h.providerCustomerId || undefined, find: webhooks.findCustomersByProviderId },
  {
    value: (h) => h.customerKey || undefined,
    find: (sql, keys) => findCustomersByKeys(sql, keys.map(({ programId, value }) => ({ programId, customerKey: value }))),
  },
  { value: (h) => h.subscriptionId, find: webhooks.findCustomersBySubscription },
];

/** Each event's customer, or undefined: one round trip per step that some unresolved event has a value for. */
export async function resolveCustomers(sql: Sql, events: Wanted[]): Promise<Array<AttributableCustomer | undefined>> {
  const customers: Array<AttributableCustomer | undefined> = events.map(() => undefined);
  for (const step of steps) {
    const open = events.flatMap(({ programId, hints }, i) => {
      const value = customers[i] ? undefined : step.value(hints);
      return value === undefined ? [] : [{ i, programId, value }];
    });
    if (open.length === 0) continue;
    const found = await step.find(sql, open);
    for (const { i, programId, value } of open) customers[i] = found.get(programKey(programId, value));
  }
  return customers;
}
