import type { DuckDBValue } from '@duckdb/node-api';
import { list, type Columns, type Sql } from './db.js';
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
  /** The verified request body as received, kept for a skipped event only (docs/architecture.md §7.4). */
  payload: string | null;
  /** The Stripe subscription and customer the event names (deferred attribution). */
  subscription_id?: string | null;
  provider_customer_id?: string | null;
};

export type WebhookEventSummary = Omit<WebhookEventRow, 'payload' | 'subscription_id' | 'provider_customer_id'>;

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
];

/** An event already stored under a row's key fails the append (the primary key). */
export function appendWebhookEvents(sql: Sql, rows: WebhookEventRow[]): Promise<void> {
  return sql.append('webhook_events', EVENT_COLUMNS, rows.map((row) => ({ ...row, event_key: programKey(row.program_id, row.event_id) })));
}

/** What a sale made attributable: the subscription it recorded, the Stripe customer it linked. */
export type DeferralKeys = { subscriptionId?: string; providerCustomerId?: string };

/** The program's events skipped as no_attribution that name the subscription or Stripe customer, oldest first. */
export function findUnattributedEvents(sql: Sql, programId: number, keys: DeferralKeys): Promise<Array<{ event_id: string; payload: string }>> {
  return sql.all(
    `SELECT event_id, payload FROM webhook_events
     WHERE program_id = $1 AND outcome = 'skipped' AND reason = 'no_attribution' AND (subscription_id = $2 OR provider_customer_id = $3)
     ORDER BY received_at, rowid`,
    [programId, keys.subscriptionId ?? null, keys.providerCustomerId ?? null],
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
     WHERE program_id = $1 ORDER BY received_at DESC, rowid DESC LIMIT $2`,
    [programId, limit],
  );
}

/** What one attribution step looks for: a value within a program. */
export type Match = { programId: number; value: string };

/** `program_id = ANY($1) AND <column> = ANY($2)`: the batch's programs and values (pairs across them are never looked up). */
function programsAndValues(pairs: Match[]): DuckDBValue[] {
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
  await sql.run(
    `UPDATE customers SET provider_customer_id = l.provider_customer_id
     FROM (SELECT unnest($1::BIGINT[]) AS id, unnest($2::VARCHAR[]) AS provider_customer_id) l
     WHERE customers.id = l.id AND customers.provider_customer_id IS NULL`,
    [list(first.map((l) => l.customerId)), list(first.map((l) => l.providerCustomerId))],
  );
}

/** The program's signing secret becomes the one Stripe shows for its webhook endpoint. */
export async function updateWebhookSecret(sql: Sql, programId: number, secret: string): Promise<void> {
  await sql.run('UPDATE programs SET webhook_secret = $2 WHERE id = $1', [programId, secret]);
}
