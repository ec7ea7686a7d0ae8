import { list, type Columns, type Params, type Sql } from './db.js';
import { programKey } from './program-key.js';
import { firstMatches, matched, type Matches, noMatches } from './tracking.js';

export type WebhookOutcome = 'recorded' | 'skipped' | 'ignored';

export type WebhookEventRow = {
  program_id: number;
  event_id: string;
  type: string;
  outcome: WebhookOutcome;
  reason: string | null;
  sale_id: number | null;
  received_at: Date;
  /** The verified request body as received, kept for a skipped event only (docs/architecture.md#store-the-event). */
  payload: string | null;
} & Partial<DeferralColumns>;

/** What a waiting event names, so the sale or link it waits for finds it: see DeferralKeys. */
type DeferralColumns = {
  subscription_id: string | null;
  provider_customer_id: string | null;
  payment_intent_id: string | null;
  invoice_id: string | null;
  charge_id: string | null;
};

export type WebhookEventSummary = Omit<WebhookEventRow, 'payload' | keyof DeferralColumns>;

/** An event as its answer and the admin listing show it (WebhookEventSummary). */
const SUMMARY = 'SELECT program_id, event_id, type, outcome, reason, sale_id, received_at FROM webhook_events';

/** Stored events by key (programKey(program, event id)): one round trip for a batch of deliveries. */
export async function findWebhookEvents(sql: Sql, keys: string[]): Promise<Map<string, WebhookEventSummary>> {
  if (keys.length === 0) return new Map();
  const rows = await sql.all<WebhookEventSummary>(
    `${SUMMARY} WHERE event_key = ANY($1::VARCHAR[])`,
    [list(keys)],
  );
  return new Map(rows.map((row) => [programKey(row.program_id, row.event_id), row]));
}

const EVENT_COLUMNS: Columns<WebhookEventRow & { event_key: string }> = [
  ['event_key', 'VARCHAR'], ['program_id', 'BIGINT'], ['event_id', 'VARCHAR'], ['type', 'VARCHAR'], ['outcome', 'VARCHAR'], ['reason', 'VARCHAR'],
  ['sale_id', 'BIGINT'], ['received_at', 'TIMESTAMP'], ['payload', 'VARCHAR'], ['subscription_id', 'VARCHAR'], ['provider_customer_id', 'VARCHAR'],
  ['payment_intent_id', 'VARCHAR'], ['invoice_id', 'VARCHAR'], ['charge_id', 'VARCHAR'],
];

/** An event already stored under a row's key fails the append (the primary key). */
export function appendWebhookEvents(sql: Sql, rows: WebhookEventRow[]): Promise<void> {
  return sql.append('webhook_events', EVENT_COLUMNS, rows.map((row) => ({ ...row, event_key: programKey(row.program_id, row.event_id) })));
}

/**
 * What an event may wait for is stored with it: an unattributed sale its subscription and Stripe
 * customer, a refund whose sale was not found its charge's payment intent, invoice and charge.
 */
export type DeferralKeys = { subscriptionId?: string; providerCustomerId?: string; paymentIntentId?: string; invoiceId?: string; chargeId?: string };

/**
 * What a recorded sale or link makes findable: the subscription it recorded and the Stripe customer
 * it linked (for unattributed events), the payment ids it carries (for refunds whose sale was not found).
 */
export type Unlocks = { subscriptionId?: string; providerCustomerId?: string; paymentRefs?: string[] };

/**
 * The program's waiting events that any of the unlocks makes findable, oldest first: skipped as
 * no_attribution and naming one of the subscriptions or Stripe customers, or skipped as
 * sale_not_found and naming one of the payment ids, directly or as the payment intent or charge
 * linked to one of them as an invoice (docs/webhooks.md#deferred-attribution-events-out-of-order, docs/refunds-and-payouts.md#invoice_paymentpaid-and-refunds-that-wait).
 * One scan for a whole page of reconciled events (docs/stripe-reconciliation.md#running-it).
 */
export function findDeferredEvents(sql: Sql, programId: number, unlocks: readonly Unlocks[]): Promise<Array<{ event_id: string; payload: string }>> {
  const values = (pick: (u: Unlocks) => Array<string | undefined> | undefined) =>
    list([...new Set(unlocks.flatMap((u) => pick(u) ?? []).filter((v): v is string => v !== undefined))]);
  return sql.all(
    `SELECT event_id, payload FROM webhook_events
     WHERE program_id = $1 AND outcome = 'skipped' AND (
       (reason = 'no_attribution' AND (subscription_id = ANY($2::VARCHAR[]) OR provider_customer_id = ANY($3::VARCHAR[])))
       OR (reason = 'sale_not_found' AND (
         payment_intent_id = ANY($4::VARCHAR[]) OR invoice_id = ANY($4::VARCHAR[]) OR charge_id = ANY($4::VARCHAR[])
         OR payment_intent_id IN (SELECT payment_intent_id FROM invoice_payments WHERE program_id = $1 AND invoice_id = ANY($4::VARCHAR[]))
         OR charge_id IN (SELECT charge_id FROM invoice_payments WHERE program_id = $1 AND invoice_id = ANY($4::VARCHAR[])))))
     ORDER BY received_at, ${sql.arrival}`,
    [programId, values((u) => [u.subscriptionId]), values((u) => [u.providerCustomerId]), values((u) => u.paymentRefs)],
  );
}

/** An event decided again: only its outcome columns change. */
export async function updateEventOutcome(sql: Sql, row: WebhookEventSummary): Promise<void> {
  await sql.run('UPDATE webhook_events SET outcome = $2, reason = $3, sale_id = $4 WHERE event_key = $1', [
    programKey(row.program_id, row.event_id),
    row.outcome,
    row.reason,
    row.sale_id,
  ]);
}

/** Newest first; events of one instant (a pinned clock) in reverse arrival order. */
export function recentWebhookEvents(sql: Sql, programId: number, limit: number): Promise<WebhookEventSummary[]> {
  return sql.all<WebhookEventSummary>(
    `${SUMMARY}
     WHERE program_id = $1 ORDER BY received_at DESC, ${sql.arrival} DESC LIMIT $2`,
    [programId, limit],
  );
}

/** What one attribution step looks for: a value within a program. */
export type Match = { programId: number; value: string };

/** `program_id = ANY($1) AND <column> = ANY($2)`: the batch's programs and values (pairs across them are never looked up). */
function programsAndValues(pairs: Match[]): Params {
  return [list([...new Set(pairs.map((p) => p.programId))]), list([...new Set(pairs.map((p) => p.value))])];
}

/** The first customer of each (program, value) of one customers column, in `order`. */
function firstByColumn(column: string, order: string) {
  const query = `${matched(`cu.${column}`)} WHERE cu.program_id = ANY($1::BIGINT[]) AND cu.${column} = ANY($2::VARCHAR[]) ORDER BY ${order}`;
  return (sql: Sql, pairs: Match[]): Promise<Matches> => (pairs.length === 0 ? noMatches : firstMatches(sql, query, programsAndValues(pairs)));
}

/** The most recent lead of each e-mail (leads store it lower-cased, so the values must be too). */
export const findCustomersByEmail = firstByColumn('email', 'cu.signup_date DESC, cu.id DESC');
/** The earliest customer a provider customer id was linked to. */
export const findCustomersByProviderId = firstByColumn('provider_customer_id', 'cu.id');

/** The customer of each subscription's first recorded sale. */
export function findCustomersBySubscription(sql: Sql, subscriptionIds: Match[]): Promise<Matches> {
  if (subscriptionIds.length === 0) return noMatches;
  return firstMatches(
    sql,
    `${matched('s.subscription_id', 'sale_events s JOIN customers cu ON cu.id = s.customer_id')}
     WHERE s.program_id = ANY($1::BIGINT[]) AND s.subscription_id = ANY($2::VARCHAR[]) ORDER BY s.id`,
    programsAndValues(subscriptionIds),
  );
}

/** Remembers the provider's customer id on the first attributed session; an existing link is kept, and of one customer's links the first. */
export async function linkProviderCustomers(sql: Sql, links: Array<{ customerId: number; providerCustomerId: string }>): Promise<void> {
  const first = [...new Map(links.toReversed().map((link) => [link.customerId, link])).values()];
  if (first.length === 0) return;
  await sql.write(
    {
      table: 'customers', set: 'provider_customer_id = l.provider_customer_id',
      from: '(SELECT unnest($1::BIGINT[]) AS id, unnest($2::VARCHAR[]) AS provider_customer_id) l',
      where: 'customers.id = l.id AND customers.provider_customer_id IS NULL',
    },
    [list(first.map((l) => l.customerId)), list(first.map((l) => l.providerCustomerId))],
  );
}

/** The program's signing secret becomes the one Stripe shows for its webhook endpoint. */
export async function updateWebhookSecret(sql: Sql, programId: number, secret: string): Promise<void> {
  await sql.run('UPDATE programs SET webhook_secret = $2 WHERE id = $1', [programId, secret]);
}
