import { list, type Columns, type Param, type Sql } from './db.js';

/** What a group's threshold counts, and over which window (docs/groups.md#automatic-moves). */
export type ThresholdMetric = 'conversions' | 'revenue';
export type ThresholdWindow = '30d' | 'all';

/** A program's partner group (docs/groups.md#groups); a null commission leaves the sale reward to the program. */
export type GroupRow = {
  id: number;
  program_id: number;
  name: string;
  is_default: boolean;
  commission_type: 'percent' | 'flat' | null;
  commission_value: number | null;
  hold_days: number;
  recurring_months: number | null;
  lead_reward_cents: number | null;
  next_group_id: number | null;
  threshold_metric: ThresholdMetric | null;
  threshold_value: number | null;
  threshold_window: ThresholdWindow | null;
  created_at: Date;
};

/** A partner's move from one group to another (docs/groups.md#automatic-moves); from_group_id null: no group before. */
export type GroupMoveRow = {
  id: number;
  program_id: number;
  partner_program_id: number;
  from_group_id: number | null;
  to_group_id: number;
  reason: 'threshold' | 'manual';
  sale_id: number | null;
  created_at: Date;
};

const MOVE_COLUMNS: Columns<GroupMoveRow> = [
  ['id', 'BIGINT'], ['program_id', 'BIGINT'], ['partner_program_id', 'BIGINT'], ['from_group_id', 'BIGINT'], ['to_group_id', 'BIGINT'],
  ['reason', 'VARCHAR'], ['sale_id', 'BIGINT'], ['created_at', 'TIMESTAMP'],
];

export async function insertGroup(sql: Sql, g: GroupRow): Promise<void> {
  await sql.run(
    `INSERT INTO partner_groups (id, program_id, name, is_default, commission_type, commission_value, hold_days, recurring_months, lead_reward_cents,
       next_group_id, threshold_metric, threshold_value, threshold_window, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [g.id, g.program_id, g.name, g.is_default, g.commission_type, g.commission_value, g.hold_days, g.recurring_months, g.lead_reward_cents,
      g.next_group_id, g.threshold_metric, g.threshold_value, g.threshold_window, g.created_at],
  );
}

/** Writes every setting of a group (all but its id, program and creation). */
export async function updateGroup(sql: Sql, g: GroupRow): Promise<void> {
  await sql.run(
    `UPDATE partner_groups SET name = $2, is_default = $3, commission_type = $4, commission_value = $5, hold_days = $6, recurring_months = $7,
       lead_reward_cents = $8, next_group_id = $9, threshold_metric = $10, threshold_value = $11, threshold_window = $12 WHERE id = $1`,
    [g.id, g.name, g.is_default, g.commission_type, g.commission_value, g.hold_days, g.recurring_months, g.lead_reward_cents, g.next_group_id,
      g.threshold_metric, g.threshold_value, g.threshold_window],
  );
}

/** The program's default group is this one from now on: every other one stops being the default. */
export async function setDefaultGroup(sql: Sql, programId: number, groupId: number): Promise<void> {
  await sql.run('UPDATE partner_groups SET is_default = (id = $2) WHERE program_id = $1 AND is_default <> (id = $2)', [programId, groupId]);
}

export async function deleteGroup(sql: Sql, id: number): Promise<void> {
  await sql.run('DELETE FROM partner_groups WHERE id = $1', [id]);
}

/** The groups of some programs, by id. */
export function groupsOf(sql: Sql, programIds: number[]): Promise<GroupRow[]> {
  if (programIds.length === 0) return Promise.resolve([]);
  return sql.all<GroupRow>('SELECT * FROM partner_groups WHERE program_id = ANY($1::BIGINT[]) ORDER BY id', [list(programIds)]);
}

/** How many of a program's enrollments name each group; `group_id` null: those that name none. */
export function groupEnrollmentCounts(sql: Sql, programId: number): Promise<Array<{ group_id: number | null; partners: number }>> {
  return sql.all('SELECT group_id, count(*) AS partners FROM partner_programs WHERE program_id = $1 GROUP BY group_id', [programId]);
}

/** The enrollments of a program in a group, `orNone` adding those that name no group (the default's). */
export async function enrollmentsInGroup(sql: Sql, programId: number, groupId: number, orNone: boolean): Promise<Array<{ id: number; group_id: number | null }>> {
  return sql.all('SELECT id, group_id FROM partner_programs WHERE program_id = $1 AND (group_id = $2 OR ($3 AND group_id IS NULL)) ORDER BY id', [
    programId, groupId, orNone,
  ]);
}

/** Puts enrollments in a group (through write: the reports roll enrollments up). */
export async function setEnrollmentGroup(sql: Sql, enrollmentIds: number[], groupId: number): Promise<void> {
  if (enrollmentIds.length === 0) return;
  await sql.write({ table: 'partner_programs', set: 'group_id = $2', where: 'id = ANY($1::BIGINT[])' }, [list(enrollmentIds), groupId]);
}

export function appendMoves(sql: Sql, rows: GroupMoveRow[]): Promise<void> {
  return sql.append('group_moves', MOVE_COLUMNS, rows);
}

/** A move with the partner it moved. */
export type GroupMoveView = GroupMoveRow & { partner_id: number };

/** The moves of a program, optionally of one partner, newest first. */
export function listMoves(sql: Sql, programId: number, partnerId: number | null): Promise<GroupMoveView[]> {
  return sql.all<GroupMoveView>(
    `SELECT m.*, pp.partner_id FROM group_moves m JOIN partner_programs pp ON pp.id = m.partner_program_id
     WHERE m.program_id = $1 AND ($2::BIGINT IS NULL OR pp.partner_id = $2) ORDER BY m.id DESC`,
    [programId, partnerId],
  );
}

/** What a threshold asks about an enrollment: its metric over its window. */
export type FigureQuery = { enrollmentId: number; metric: ThresholdMetric; window: ThresholdWindow };

/**
 * The figures thresholds compare, for a batch's enrollments, in one statement: conversions (customers
 * whose first purchase was recorded) and revenue (live sales as recorded), over the last 30 days
 * (after `since30d`) and all time, keyed by figureKey (docs/groups.md#automatic-moves). A grouped
 * scan of the enrollments' rows per metric asked for: no join, no subquery per enrollment.
 */
export async function thresholdFigures(sql: Sql, wanted: FigureQuery[], since30d: Date): Promise<Map<string, number>> {
  const params: Param[] = [since30d];
  const parts: string[] = [];
  const counted: Record<ThresholdMetric, { table: string; at: string; sum: string; where: string }> = {
    conversions: { table: 'customers', at: 'first_purchase_date', sum: 'count(*)', where: " AND status = 'conversion'" },
    revenue: { table: 'sale_events', at: 'received_at', sum: 'sum(amount_cents)', where: '' },
  };
  const totals = new Set<ThresholdMetric>();
  // Only the metrics asked for, of the enrollments that ask; a metric asked over 30 days alone reads only those days.
  for (const metric of ['conversions', 'revenue'] as const) {
    const asked = wanted.filter((w) => w.metric === metric);
    if (asked.length === 0) continue;
    const { table, at, sum, where } = counted[metric];
    params.push(list([...new Set(asked.map((w) => w.enrollmentId))]));
    const allTime = asked.some((w) => w.window === 'all');
    if (allTime) totals.add(metric);
    parts.push(
      `SELECT partner_program_id AS enrollment_id, '${metric}' AS metric, CAST(${sum} FILTER (WHERE ${at} > $1) AS HUGEINT) AS recent, CAST(${sum} AS HUGEINT) AS total
       FROM ${table} WHERE partner_program_id = ANY($${params.length}::BIGINT[])${where}${allTime ? '' : ` AND ${at} > $1`} GROUP BY partner_program_id`,
    );
  }
  if (parts.length === 0) return new Map();
  const rows = await sql.all<{ enrollment_id: number; metric: ThresholdMetric; recent: number | bigint | string | null; total: number | bigint | string | null }>(
    parts.join(' UNION ALL '),
    params,
  );
  const figures = new Map<string, number>();
  for (const r of rows) {
    figures.set(figureKey({ enrollment_id: r.enrollment_id, metric: r.metric, time_window: '30d' }), Number(r.recent ?? 0));
    if (totals.has(r.metric)) figures.set(figureKey({ enrollment_id: r.enrollment_id, metric: r.metric, time_window: 'all' }), Number(r.total ?? 0));
  }
  return figures;
}

/** The key of a figure: its enrollment, metric and window. */
export const figureKey = (f: { enrollment_id: number; metric: ThresholdMetric; time_window: ThresholdWindow }) => `${f.enrollment_id}:${f.metric}:${f.time_window}`;

/** The groups and partners of enrollments, by enrollment id: one round trip for a batch of leads. */
export async function enrollmentGroups(sql: Sql, enrollmentIds: number[]): Promise<Map<number, { group_id: number | null; partner_id: number }>> {
  if (enrollmentIds.length === 0) return new Map();
  const rows = await sql.all<{ id: number; group_id: number | null; partner_id: number }>(
    'SELECT id, group_id, partner_id FROM partner_programs WHERE id = ANY($1::BIGINT[])',
    [list(enrollmentIds)],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

/** The customers a lead reward was created for (docs/groups.md#lead-rewards); the key makes it once per customer. */
export function appendLeadRewards(sql: Sql, rows: Array<{ customer_id: number; commission_id: number }>): Promise<void> {
  return sql.append('lead_rewards', [['customer_id', 'BIGINT'], ['commission_id', 'BIGINT']], rows);
}
