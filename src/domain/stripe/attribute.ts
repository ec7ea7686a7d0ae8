import type { Sql } from '../../store/db.js';
import * as tracking from '../../store/tracking.js';
import * as webhooks from '../../store/webhooks.js';
import { matchKey, type Match, type Matches, type MatchedCustomer } from '../../store/webhooks.js';
import { clickRowId } from '../tracking.js';
import type { AttributionHints } from './plan.js';

/** An event's attribution question: its program and what identifies its customer. */
export type Wanted = { programId: number; hints: AttributionHints };

/** One step of §6 for a batch: what it looks for in an event's hints, and the customers of those values by matchKey. */
type Step = {
  value(hints: AttributionHints): string | undefined;
  find(sql: Sql, values: Match[]): Promise<Matches>;
};

/**
 * The attribution fallback order of §6: the click id, the e-mail against the lead, the provider's
 * customer id from an earlier attributed session, the customer key alone; renewals last through
 * the subscription's earlier sale (DECISIONS §5). The first step that finds a customer wins.
 */
const steps: Step[] = [
  { value: (h) => h.clickId, find: findCustomersByClickId },
  { value: (h) => h.email?.toLowerCase() || undefined, find: webhooks.findCustomersByEmail },
  { value: (h) => h.providerCustomerId || undefined, find: webhooks.findCustomersByProviderId },
  { value: (h) => h.customerKey || undefined, find: webhooks.findCustomersByKey },
  { value: (h) => h.subscriptionId, find: webhooks.findCustomersBySubscription },
];

/**
 * A click id names its click only when the stored value matches, not only the row id it embeds,
 * in the event's program. Two statements: DuckDB's join of clicks and customers cost more than both.
 */
async function findCustomersByClickId(sql: Sql, clickIds: Match[]): Promise<Matches> {
  const clicks = await tracking.findClicksById(sql, clickIds.flatMap(({ value }) => clickRowId(value) ?? []));
  const wanted = new Set(clickIds.map(({ programId, value }) => matchKey(programId, value)));
  const named = clicks.filter((click) => wanted.has(matchKey(click.program_id, click.click_id)));
  const customers = await webhooks.findCustomersByClick(sql, named.map((click) => ({ programId: click.program_id, value: click.id })));
  const found: Matches = new Map();
  for (const click of named) {
    const customer = customers.get(matchKey(click.program_id, click.id));
    if (customer) found.set(matchKey(click.program_id, click.click_id), customer);
  }
  return found;
}

/** Each event's customer, or undefined: one round trip per step that some unresolved event has a value for. */
export async function resolveCustomers(sql: Sql, events: Wanted[]): Promise<Array<MatchedCustomer | undefined>> {
  const customers: Array<MatchedCustomer | undefined> = events.map(() => undefined);
  for (const step of steps) {
    const open = events.flatMap(({ programId, hints }, i) => {
      const value = customers[i] ? undefined : step.value(hints);
      return value === undefined ? [] : [{ i, programId, value }];
    });
    if (open.length === 0) continue;
    const found = await step.find(sql, open);
    for (const { i, programId, value } of open) customers[i] = found.get(matchKey(programId, value));
  }
  return customers;
}
