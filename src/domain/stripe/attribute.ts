import type { Sql } from '../../store/db.js';
import * as tracking from '../../store/tracking.js';
import type { CustomerRow } from '../../store/tracking.js';
import * as webhooks from '../../store/webhooks.js';
import { findClick } from '../tracking.js';
import type { AttributionHints } from './plan.js';

type Step = (sql: Sql, programId: number, hints: AttributionHints) => Promise<CustomerRow | undefined> | undefined;

/**
 * The attribution fallback order of §6: the click id, the e-mail against the lead, the provider's
 * customer id from an earlier attributed session, the customer key alone; renewals last through
 * the subscription's earlier sale (DECISIONS §5). The first step that finds a customer wins.
 */
const steps: Step[] = [
  async (sql, programId, { clickId }) => {
    if (clickId === undefined) return undefined;
    const click = await findClick(sql, clickId);
    return click && click.program_id === programId ? tracking.findCustomerByClick(sql, programId, click.id) : undefined;
  },
  (sql, programId, { email }) => (email ? webhooks.findCustomerByEmail(sql, programId, email) : undefined),
  (sql, programId, { providerCustomerId }) =>
    providerCustomerId ? webhooks.findCustomerByProviderId(sql, programId, providerCustomerId) : undefined,
  (sql, programId, { customerKey }) => (customerKey ? tracking.findCustomerByKey(sql, programId, customerKey) : undefined),
  (sql, programId, { subscriptionId }) =>
    subscriptionId ? webhooks.findCustomerBySubscription(sql, programId, subscriptionId) : undefined,
];

export async function resolveCustomer(sql: Sql, programId: number, hints: AttributionHints): Promise<CustomerRow | undefined> {
  for (const step of steps) {
    const customer = await step(sql, programId, hints);
    if (customer) return customer;
  }
  return undefined;
}
