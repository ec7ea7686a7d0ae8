import { list, type Sql } from './db.js';

/*
 * The outbox's tables (docs/outbound-webhooks.md#the-outbox): webhook endpoints, messages written
 * with the change that causes them, deliveries with their lease, and attempts.
 */

export type EndpointRow = {
  id: number;
  program_id: number;
  url: string;
  description: string | null;
  /** Comma-separated event types; null for every type. */
  events: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  created_at: Date;
  removed_at: Date | null;
};

/** What a message is: an outbound webhook event, or a mail (docs/mail.md#the-outbox). */
export type Channel = 'webhook' | 'mail';

/**
 * `targets`: the endpoints (comma-separated ids) whose deliveries are still to be written, by the
 * delivery worker of the process that wrote the message; null once written (docs/outbound-webhooks.md#the-outbox).
 */
export type MessageRow = { id: number; channel: Channel; program_id: number; type: string; ref: string; body: string; created_at: Date; targets: string | null };

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export type DeliveryRow = {
  id: number;
  message_id: number;
  channel: Channel;
  target_id: number;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  lease_owner: string | null;
  lease_until: Date | null;
  created_at: Date;
};

export type AttemptRow = {
  id: number;
  delivery_id: number;
  attempted_at: Date;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
  response: string | null;
};

const ENDPOINT_COLUMNS = `id, program_id, url, description, events, enabled, disabled_reason, secret, previous_secret, previous_secret_until,
  created_at, removed_at`;

export async function insertEndpoint(sql: Sql, row: EndpointRow): Promise<void> {
  await sql.run(`INSERT INTO webhook_endpoints (${ENDPOINT_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`, [
    row.id, row.program_id, row.url, row.description, row.events, row.enabled, row.disabled_reason, row.secret, row.previous_secret,
    row.previous_secret_until, row.created_at, row.removed_at,
  ]);
}

/** A program's endpoints that were not removed, by id; `ids` narrows them. */
export function programEndpoints(sql: Sql, programIds: number[], ids?: number[]): Promise<EndpointRow[]> {
  return sql.all<EndpointRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints
     WHERE program_id = ANY($1::BIGINT[]) AND removed_at IS NULL AND ($2::BIGINT[] IS NULL OR id = ANY($2::BIGINT[])) ORDER BY id`,
    [list(programIds), ids === undefined ? null : list(ids)],
  );
}

/** Endpoints by id, removed ones too (a claimed delivery's endpoint may have been removed since). */
export function findEndpoints(sql: Sql, ids: number[]): Promise<EndpointRow[]> {
  return sql.all<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = ANY($1::BIGINT[])`, [list(ids)]);
}

export type EndpointChanges = Partial<Pick<EndpointRow, 'url' | 'description' | 'events' | 'enabled' | 'disabled_reason' | 'secret' | 'previous_secret' | 'previous_secret_until' | 'removed_at'>>;

export async function updateEndpoint(sql: Sql, id: number, changes: EndpointChanges): Promise<void> {
  const entries = Object.entries(changes);
  if (entries.length === 0) return;
  const set = entries.map(([column], i) => `${column} = $${i + 2}`).join(', ');
  await sql.run(`UPDATE webhook_endpoints SET ${set} WHERE id = $1`, [id, ...entries.map(([, value]) => value as EndpointRow[keyof EndpointRow])]);
}

/** Disables those of the endpoints still enabled, answering them; their pending deliveries fail with them. */
export async function disableEndpoints(sql: Sql, ids: number[], reason: string): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const disabled = await sql.all<{ id: number }>(
    'UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2 WHERE id = ANY($1::BIGINT[]) AND enabled RETURNING id',
    [list(ids), reason],
  );
  await sql.run(
    `UPDATE outbox_deliveries SET status = 'failed', next_attempt_at = NULL, lease_owner = NULL, lease_until = NULL
     WHERE target_id = ANY($1::BIGINT[]) AND status = 'pending'`,
    [list(ids)],
  );
  return new Set(disabled.map((r) => r.id));
}

export function appendMessages(sql: Sql, rows: MessageRow[]): Promise<void> {
  return sql.append('outbox_messages', [
    ['id', 'BIGINT'], ['channel', 'VARCHAR'], ['program_id', 'BIGINT'], ['type', 'VARCHAR'], ['ref', 'VARCHAR'], ['body', 'VARCHAR'], ['created_at', 'TIMESTAMP'],
    ['targets', 'VARCHAR'],
  ], rows);
}

export function appendDeliveries(sql: Sql, rows: DeliveryRow[]): Promise<void> {
  return sql.append('outbox_deliveries', [
    ['id', 'BIGINT'], ['message_id', 'BIGINT'], ['channel', 'VARCHAR'], ['target_id', 'BIGINT'], ['status', 'VARCHAR'], ['attempts', 'BIGINT'],
    ['next_attempt_at', 'TIMESTAMP'], ['lease_owner', 'VARCHAR'], ['lease_until', 'TIMESTAMP'], ['created_at', 'TIMESTAMP'],
  ], rows);
}

/**
 * What a claim takes: up to `limit` due deliveries of the channel, not of a busy target, not held
 * in memory already. With a `lease` it writes one on each (the instance's id and its expiry) and
 * takes only deliveries whose lease is free or expired; without, it only reads them.
 */
export type Claim = {
  now: Date;
  limit: number;
  channel: Channel;
  busyTargets: number[];
  held: number[];
  lease: { owner: string; until: Date } | null;
};

/**
 * Takes the longest-due deliveries a claim may (docs/outbound-webhooks.md#several-instances). A
 * lease is checked again by the UPDATE that writes it, so two instances claiming at once never both
 * take a delivery; a database only this process writes needs none, and a claim is then a read.
 */
export async function claimDue(sql: Sql, claim: Claim): Promise<DeliveryRow[]> {
  const due = `status = 'pending' AND channel = $1 AND next_attempt_at <= $2 AND NOT (target_id = ANY($3::BIGINT[])) AND NOT (id = ANY($4::BIGINT[]))`;
  const params = [claim.channel, claim.now, list(claim.busyTargets), list(claim.held), claim.limit];
  if (claim.lease === null) return sql.all<DeliveryRow>(`SELECT * FROM outbox_deliveries WHERE ${due} ORDER BY next_attempt_at, id LIMIT $5`, params);
  const free = '(lease_until IS NULL OR lease_until <= $2)';
  const claimed = await sql.all<DeliveryRow>(
    `UPDATE outbox_deliveries SET lease_owner = $6, lease_until = $7
     WHERE id IN (SELECT id FROM outbox_deliveries WHERE ${due} AND ${free} ORDER BY next_attempt_at, id LIMIT $5) AND ${free}
     RETURNING *`,
    [...params, claim.lease.owner, claim.lease.until],
  );
  // RETURNING keeps no order: the longest due go first.
  return claimed.sort((a, b) => a.next_attempt_at!.getTime() - b.next_attempt_at!.getTime() || a.id - b.id);
}

/**
 * The least and the greatest of ids, as two parameters: beside `id = ANY(…)` they let DuckDB skip
 * the row groups outside the range instead of scanning the whole table (docs/store-engines.md).
 */
const idRange = (ids: number[]): [number, number] => [Math.min(...ids), Math.max(...ids)];

/** Messages by id. */
export function findMessages(sql: Sql, ids: number[]): Promise<MessageRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return sql.all<MessageRow>('SELECT * FROM outbox_messages WHERE id BETWEEN $2 AND $3 AND id = ANY($1::BIGINT[])', [list(ids), ...idRange(ids)]);
}

/** A message by its public id (evt_…). */
export function findMessageByRef(sql: Sql, ref: string): Promise<MessageRow | undefined> {
  return sql.one<MessageRow>('SELECT * FROM outbox_messages WHERE ref = $1', [ref]);
}

/** A delivery after an attempt: its new status, count and next attempt (null once settled). */
export type DeliveryUpdate = { id: number; status: DeliveryStatus; attempts: number; next_attempt_at: Date | null };

/** Writes the attempts and frees their deliveries' leases, in one statement each. */
export async function recordAttempts(sql: Sql, attempts: AttemptRow[], updates: DeliveryUpdate[]): Promise<void> {
  await sql.append('outbox_attempts', [
    ['id', 'BIGINT'], ['delivery_id', 'BIGINT'], ['attempted_at', 'TIMESTAMP'], ['status_code', 'BIGINT'], ['error', 'VARCHAR'], ['duration_ms', 'BIGINT'],
    ['response', 'VARCHAR'],
  ], attempts);
  if (updates.length === 0) return;
  await sql.run(
    `UPDATE outbox_deliveries SET status = u.status, attempts = u.attempts, next_attempt_at = u.next_attempt_at, lease_owner = NULL, lease_until = NULL
     FROM (SELECT unnest($1::BIGINT[]) AS id, unnest($2::VARCHAR[]) AS status, unnest($3::BIGINT[]) AS attempts, unnest($4::TIMESTAMP[]) AS next_attempt_at) u
     WHERE outbox_deliveries.id = u.id AND outbox_deliveries.id BETWEEN $5 AND $6`,
    [
      list(updates.map((u) => u.id)), list(updates.map((u) => u.status)), list(updates.map((u) => u.attempts)), list(updates.map((u) => u.next_attempt_at)),
      ...idRange(updates.map((u) => u.id)),
    ],
  );
}

/** A delivery as the log shows it: its event and its last attempt. */
export type DeliveryLogRow = DeliveryRow & {
  event_ref: string;
  event_type: string;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  last_duration_ms: number | null;
  last_response: string | null;
};

/** An endpoint's deliveries, newest first, optionally of one status. */
export function endpointDeliveries(sql: Sql, endpointId: number, status: DeliveryStatus | undefined, limit: number): Promise<DeliveryLogRow[]> {
  return sql.all<DeliveryLogRow>(
    `WITH d AS (SELECT * FROM outbox_deliveries WHERE target_id = $1 AND channel = 'webhook' AND ($2::VARCHAR IS NULL OR status = $2) ORDER BY id DESC LIMIT $3)
     SELECT d.*, m.ref AS event_ref, m.type AS event_type, a.attempted_at AS last_attempt_at, a.status_code AS last_status_code, a.error AS last_error,
       a.duration_ms AS last_duration_ms, a.response AS last_response
     FROM d
     JOIN outbox_messages m ON m.id = d.message_id
     LEFT JOIN (SELECT DISTINCT ON (delivery_id) * FROM outbox_attempts WHERE delivery_id IN (SELECT id FROM d) ORDER BY delivery_id, id DESC) a ON a.delivery_id = d.id
     ORDER BY d.id DESC`,
    [endpointId, status ?? null, limit],
  );
}

/** The endpoints that had a delivery of a message, written or still to be. */
export async function messageTargets(sql: Sql, message: MessageRow): Promise<number[]> {
  const rows = await sql.all<{ target_id: number }>('SELECT DISTINCT target_id FROM outbox_deliveries WHERE message_id = $1', [message.id]);
  return [...new Set([...rows.map((r) => r.target_id), ...targetIds(message.targets)])].sort((a, b) => a - b);
}

const targetIds = (targets: string | null): number[] => (targets === null ? [] : targets.split(',').map(Number));

/**
 * Clears the targets of those of `ids` whose deliveries are still to be written and answers them:
 * the caller writes their deliveries in the same transaction, so they are written once whoever
 * else tries (docs/outbound-webhooks.md#the-outbox).
 */
export async function takeTargets(sql: Sql, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await sql.all<{ id: number }>(
    'UPDATE outbox_messages SET targets = NULL WHERE id BETWEEN $2 AND $3 AND id = ANY($1::BIGINT[]) AND targets IS NOT NULL RETURNING id',
    [list(ids), ...idRange(ids)],
  );
  return new Set(rows.map((r) => r.id));
}

/** Messages whose deliveries are still to be written, with their endpoints. */
export async function untakenTargets(sql: Sql): Promise<Array<{ message: MessageRow; targets: number[] }>> {
  const rows = await sql.all<MessageRow>('SELECT * FROM outbox_messages WHERE targets IS NOT NULL ORDER BY id');
  return rows.map((message) => ({ message, targets: targetIds(message.targets) }));
}
