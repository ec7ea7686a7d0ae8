import type { CreateGroupRequest, GroupMoveView, GroupView, PartnerGroupView, Preview, PreviewQuery, UpdateGroupRequest } from '../api/index.js';
import { utc } from '@date-fns/utc';
import { subDays } from 'date-fns/subDays';
import { AppError, invalidRequest } from '../errors.js';
import type { Sql, Store } from '../store/db.js';
import * as groups from '../store/groups.js';
import type { FigureQuery, GroupMoveRow, GroupRow, ThresholdMetric, ThresholdWindow } from '../store/groups.js';
import { findEnrollment } from '../store/partners.js';
import type { CommissionRule } from '../store/programs.js';
import { previewByPartner } from '../store/preview.js';
import { reportWindow } from './performance.js';
import { viewedProgram, type Viewer } from './access.js';
import { percentToBasisPoints } from './commission.js';
import type { Deps } from './deps.js';
import { changingProgram, type CachedProgram } from './program-cache.js';
import { commissionView } from './provisioning.js';
import { ForgetfulCache, perStore } from './store-cache.js';

/*
 * Partner groups (docs/groups.md): members add, change and remove a program's groups and put
 * partners in them; the sale batches read the groups with their program (the program cache) and
 * move partners across thresholds (docs/groups.md#automatic-moves).
 */

/** The group an enrollment is in: the one it names, else the program's default group, else none. */
export function groupOf(cached: Pick<CachedProgram, 'groups'>, groupId: number | null): GroupRow | undefined {
  if (groupId !== null) return cached.groups.get(groupId);
  for (const group of cached.groups.values()) if (group.is_default) return group;
  return undefined;
}

/**
 * What a sale of a partner in `group` earns (docs/groups.md#which-reward-a-sale-earns): the product's
 * rule, else the group's sale reward, else the program's; hold days and recurring months of the group,
 * else of the program.
 */
export function saleTerms(
  { program, rules }: Pick<CachedProgram, 'program' | 'rules'>,
  group: GroupRow | undefined,
  productId: string | undefined,
): { rule: CommissionRule; holdDays: number; recurringMonths: number | null } {
  const groupRule = group?.commission_type ? { type: group.commission_type, value: group.commission_value! } : undefined;
  const rule = (productId !== undefined && rules.get(productId)) || groupRule || { type: program.commission_type, value: program.commission_value };
  return group ? { rule, holdDays: group.hold_days, recurringMonths: group.recurring_months } : { rule, holdDays: program.hold_days, recurringMonths: program.recurring_months };
}

/** The (metric, window) pairs some threshold of the program counts. */
export function thresholdsOf(cached: Pick<CachedProgram, 'groups'>): Array<{ metric: ThresholdMetric; window: ThresholdWindow }> {
  const pairs = new Map<string, { metric: ThresholdMetric; window: ThresholdWindow }>();
  for (const g of cached.groups.values()) {
    if (g.threshold_metric !== null && g.threshold_window !== null) pairs.set(`${g.threshold_metric}:${g.threshold_window}`, { metric: g.threshold_metric, window: g.threshold_window });
  }
  return [...pairs.values()];
}

/**
 * The groups a partner in `group` moves through once its figures are `figure(metric, window)`: each
 * group whose threshold is reached hands it on to its next group, until one is not reached (or a
 * group comes round again).
 */
export function movesFrom(cached: Pick<CachedProgram, 'groups'>, group: GroupRow | undefined, figure: (metric: ThresholdMetric, window: ThresholdWindow) => number): GroupRow[] {
  const path: GroupRow[] = [];
  const seen = new Set<number>();
  let at = group;
  while (at && at.next_group_id !== null && at.threshold_metric !== null && !seen.has(at.id)) {
    seen.add(at.id);
    if (figure(at.threshold_metric, at.threshold_window!) < at.threshold_value!) break;
    const next = cached.groups.get(at.next_group_id);
    if (!next) break;
    path.push(next);
    at = next;
  }
  return path;
}

/** A threshold figure as the sale batches remember it: set to the batch's own figure after its COMMIT. */
export type FigureCell = { value: number };

// Where this process alone writes the database, the sale batches remember the figures they read:
// each batch's sales are added after its COMMIT (figures only grow), and a 30-day figure is read
// again once the window has moved on a minute of the service clock, so a sale leaving the window
// counts at most a minute too long (docs/groups.md#automatic-moves). Elsewhere every batch reads them.
const WINDOW_STEP_MS = 60_000;
const cellsOf = perStore(() => new ForgetfulCache<string, FigureCell>(100_000));

/** The figures a sale batch compares, by figureKey, reading those not remembered in one statement. */
export async function figureCells(store: Store, sql: Sql, wanted: readonly FigureQuery[], now: Date): Promise<Map<string, FigureCell>> {
  const keyOf = (q: FigureQuery) => groups.figureKey({ enrollment_id: q.enrollmentId, metric: q.metric, time_window: q.window });
  const read = async (queries: readonly FigureQuery[]) => {
    const figures = await groups.thresholdFigures(sql, [...queries], subDays(now, 30, { in: utc }));
    return queries.map((q) => [q, { value: figures.get(keyOf(q)) ?? 0 }] as const);
  };
  if (store.shared) return new Map((await read(wanted)).map(([q, cell]) => [keyOf(q), cell]));
  const step = Math.floor(now.getTime() / WINDOW_STEP_MS);
  const cacheKey = (q: FigureQuery) => (q.window === '30d' ? `${keyOf(q)}@${step}` : keyOf(q));
  const byCacheKey = new Map(wanted.map((q) => [cacheKey(q), q]));
  const cells = await cellsOf(store).getMany([...byCacheKey.keys()], async (missing) =>
    (await read(missing.map((key) => byCacheKey.get(key)!))).map(([q, cell]) => [cacheKey(q), cell] as const),
  );
  return new Map(wanted.map((q) => [keyOf(q), cells.get(cacheKey(q))!]));
}

function groupView(g: GroupRow, partners: number): GroupView {
  return {
    id: g.id,
    programId: g.program_id,
    name: g.name,
    isDefault: g.is_default,
    commission: g.commission_type === null ? null : commissionView({ type: g.commission_type, value: g.commission_value! }),
    holdDays: g.hold_days,
    recurringMonths: g.recurring_months,
    leadRewardCents: g.lead_reward_cents,
    nextGroupId: g.next_group_id,
    threshold: g.threshold_metric === null ? null : { metric: g.threshold_metric, value: g.threshold_value!, window: g.threshold_window! },
    partners,
    createdAt: g.created_at.toISOString(),
  };
}

export function moveView(m: GroupMoveRow & { partner_id: number }): GroupMoveView {
  return {
    id: m.id,
    programId: m.program_id,
    partnerId: m.partner_id,
    fromGroupId: m.from_group_id,
    toGroupId: m.to_group_id,
    reason: m.reason,
    saleId: m.sale_id,
    createdAt: m.created_at.toISOString(),
  };
}

/** Every group of the program with the enrollments in it (the default's counting those that name none). */
async function views(sql: Sql, programId: number): Promise<GroupView[]> {
  const rows = await groups.groupsOf(sql, [programId]);
  const counts = new Map((await groups.groupEnrollmentCounts(sql, programId)).map((c) => [c.group_id, Number(c.partners)]));
  return rows.map((g) => groupView(g, (counts.get(g.id) ?? 0) + (g.is_default ? (counts.get(null) ?? 0) : 0)));
}

async function viewOf(sql: Sql, programId: number, groupId: number): Promise<GroupView> {
  return (await views(sql, programId)).find((g) => g.id === groupId)!;
}

function groupNotFound(programId: number, groupId: number): AppError {
  return new AppError('not_found', `Group ${groupId} not found in program ${programId}`);
}

/** A group of the program, or 404 (a group of another program is not found either). */
async function programGroup(sql: Sql, programId: number, groupId: number): Promise<GroupRow> {
  const found = (await groups.groupsOf(sql, [programId])).find((g) => g.id === groupId);
  if (!found) throw groupNotFound(programId, groupId);
  return found;
}

/** The settings of a request laid over a group's: null clears, undefined keeps. */
function applySettings(base: GroupRow, input: UpdateGroupRequest): GroupRow {
  const next = { ...base };
  if (input.name !== undefined) next.name = input.name;
  if (input.commissionPercent !== undefined || input.commissionFlatCents !== undefined) {
    const percent = input.commissionPercent ?? null;
    const flat = input.commissionFlatCents ?? null;
    next.commission_type = percent !== null ? 'percent' : flat !== null ? 'flat' : null;
    next.commission_value = percent !== null ? percentToBasisPoints(percent) : flat;
  }
  if (input.holdDays !== undefined) next.hold_days = input.holdDays;
  if (input.recurringMonths !== undefined) next.recurring_months = input.recurringMonths;
  if (input.leadRewardCents !== undefined) next.lead_reward_cents = input.leadRewardCents;
  if (input.nextGroupId !== undefined) next.next_group_id = input.nextGroupId;
  if (input.threshold !== undefined) {
    next.threshold_metric = input.threshold?.metric ?? null;
    next.threshold_value = input.threshold?.value ?? null;
    next.threshold_window = input.threshold?.window ?? null;
  }
  if (input.default) next.is_default = true;
  return next;
}

/** A threshold and a next group need each other; the next group is another group of the program; names are unique in it. */
async function checkGroup(sql: Sql, g: GroupRow): Promise<void> {
  if ((g.next_group_id === null) !== (g.threshold_metric === null)) {
    const field = g.next_group_id === null ? 'nextGroupId' : 'threshold';
    throw invalidRequest([{ field, message: 'a threshold and a next group go together: give both or neither' }]);
  }
  if (g.next_group_id === g.id) throw invalidRequest([{ field: 'nextGroupId', message: 'a group cannot lead to itself' }]);
  const others = (await groups.groupsOf(sql, [g.program_id])).filter((o) => o.id !== g.id);
  if (g.next_group_id !== null && !others.some((o) => o.id === g.next_group_id)) throw groupNotFound(g.program_id, g.next_group_id);
  const taken = others.find((o) => o.name.toLowerCase() === g.name.toLowerCase());
  if (taken) throw new AppError('conflict', `Group name ${taken.name} is taken in program ${g.program_id}`, { name: taken.name });
}

/** Writes a checked group; one that becomes the default takes over from the old default. */
async function saveGroup(sql: Sql, g: GroupRow, isNew: boolean): Promise<void> {
  await checkGroup(sql, g);
  if (isNew) await groups.insertGroup(sql, g);
  else await groups.updateGroup(sql, g);
  if (g.is_default) await groups.setDefaultGroup(sql, g.program_id, g.id);
}

/** POST /api/programs/:programId/groups: a new group; the program's first group is its default. */
export function addGroup({ store, clock }: Deps, viewer: Viewer, programId: number, input: CreateGroupRequest): Promise<GroupView> {
  return changingProgram(store, programId, () =>
    store.transaction(async (sql) => {
      const program = await viewedProgram(store, sql, viewer, programId);
      const first = (await groups.groupsOf(sql, [programId])).length === 0;
      const blank: GroupRow = {
        id: await store.nextId(sql, 'partner_groups'),
        program_id: programId,
        name: input.name,
        is_default: first,
        commission_type: null,
        commission_value: null,
        hold_days: program.hold_days,
        recurring_months: program.recurring_months,
        lead_reward_cents: null,
        next_group_id: null,
        threshold_metric: null,
        threshold_value: null,
        threshold_window: null,
        created_at: clock.now(),
      };
      const row = applySettings(blank, input);
      await saveGroup(sql, row, true);
      return viewOf(sql, programId, row.id);
    }),
  );
}

/** GET /api/programs/:programId/groups */
export function listGroups({ store }: Deps, viewer: Viewer, programId: number): Promise<GroupView[]> {
  return store.read(async (sql) => {
    await viewedProgram(store, sql, viewer, programId);
    return views(sql, programId);
  });
}

/** PATCH /api/programs/:programId/groups/:groupId: the settings named; sales already recorded keep their commissions. */
export function updateGroup({ store }: Deps, viewer: Viewer, programId: number, groupId: number, input: UpdateGroupRequest): Promise<GroupView> {
  return changingProgram(store, programId, () =>
    store.transaction(async (sql) => {
      await viewedProgram(store, sql, viewer, programId);
      const row = applySettings(await programGroup(sql, programId, groupId), input);
      await saveGroup(sql, row, false);
      return viewOf(sql, programId, groupId);
    }),
  );
}

/**
 * DELETE /api/programs/:programId/groups/:groupId: 409 while partners are in it, unless `moveTo`
 * names the group they move to (which becomes the default if this one was), or while another group
 * leads to it.
 */
export function removeGroup(deps: Deps, viewer: Viewer, programId: number, groupId: number, moveTo: number | undefined): Promise<GroupView> {
  const { store } = deps;
  return changingProgram(store, programId, () =>
    store.transaction(async (sql) => {
      await viewedProgram(store, sql, viewer, programId);
      const group = await programGroup(sql, programId, groupId);
      const target = moveTo === undefined ? undefined : await programGroup(sql, programId, moveTo);
      if (target?.id === groupId) throw invalidRequest([{ field: 'moveTo', message: 'the partners must move to another group' }]);
      const leading = (await groups.groupsOf(sql, [programId])).find((g) => g.next_group_id === groupId);
      if (leading) throw new AppError('conflict', `Group ${leading.name} leads to group ${group.name}: change its next group first`, { groupId: leading.id });
      const view = await viewOf(sql, programId, groupId);
      const members = await groups.enrollmentsInGroup(sql, programId, groupId, group.is_default);
      if (members.length > 0 && !target) {
        throw new AppError('conflict', `Group ${group.name} has ${members.length} partner(s): name the group they move to (moveTo)`, { partners: members.length });
      }
      if (target) {
        await moveEnrollments(deps, sql, programId, members.map((m) => ({ enrollmentId: m.id, from: groupId })), target.id);
        if (group.is_default) await groups.setDefaultGroup(sql, programId, target.id);
      }
      await groups.deleteGroup(sql, groupId);
      return view;
    }),
  );
}

/** Puts enrollments in a group by a member's hand, each move recorded. */
async function moveEnrollments(deps: Deps, sql: Sql, programId: number, moving: Array<{ enrollmentId: number; from: number | null }>, to: number): Promise<GroupMoveRow[]> {
  if (moving.length === 0) return [];
  const first = await deps.store.nextId(sql, 'group_moves', moving.length);
  const now = deps.clock.now();
  const rows = moving.map(({ enrollmentId, from }, i): GroupMoveRow => ({
    id: first + i, program_id: programId, partner_program_id: enrollmentId, from_group_id: from, to_group_id: to, reason: 'manual', sale_id: null, created_at: now,
  }));
  await groups.setEnrollmentGroup(sql, moving.map((m) => m.enrollmentId), to);
  await groups.appendMoves(sql, rows);
  return rows;
}

/** PUT /api/programs/:programId/partners/:partnerId/group: the partner's group from its next sale on. */
export function setPartnerGroup(deps: Deps, viewer: Viewer, programId: number, partnerId: number, groupId: number): Promise<PartnerGroupView> {
  const { store } = deps;
  return store.transaction(async (sql) => {
    await viewedProgram(store, sql, viewer, programId);
    const enrollment = await findEnrollment(sql, programId, partnerId);
    if (!enrollment) throw new AppError('not_found', `Partner ${partnerId} is not enrolled in program ${programId}`);
    const all = await groups.groupsOf(sql, [programId]);
    const target = all.find((g) => g.id === groupId);
    if (!target) throw groupNotFound(programId, groupId);
    const current = groupOf({ groups: new Map(all.map((g) => [g.id, g])) }, enrollment.group_id ?? null);
    if (current?.id === target.id) return { partnerId, groupId, move: null };
    const [move] = await moveEnrollments(deps, sql, programId, [{ enrollmentId: enrollment.id, from: current?.id ?? null }], target.id);
    return { partnerId, groupId, move: moveView({ ...move!, partner_id: partnerId }) };
  });
}

/** GET /api/programs/:programId/group-moves: the moves of the program, or of one partner, newest first. */
export function listMoves({ store }: Deps, viewer: Viewer, programId: number, partnerId: number | undefined): Promise<GroupMoveView[]> {
  return store.read(async (sql) => {
    await viewedProgram(store, sql, viewer, programId);
    return (await groups.listMoves(sql, programId, partnerId ?? null)).map(moveView);
  });
}

/** A sum the store answered (bigint on DuckDB, numeric text on PostgreSQL) as a number of cents. */
const cents = (value: bigint | number | string) => Number(value);

/**
 * GET /api/programs/:programId/preview: what the program's sales of the period would have earned
 * under the reward asked for (a percentage, a flat amount, a group's sale reward; the program's
 * commission without one), per partner, beside what they earned; writes nothing
 * (docs/groups.md#rule-preview).
 */
export function previewRule({ store, clock }: Deps, viewer: Viewer, programId: number, query: PreviewQuery): Promise<Preview> {
  return store.read(async (sql) => {
    const program = await viewedProgram(store, sql, viewer, programId);
    let rule: CommissionRule = { type: program.commission_type, value: program.commission_value };
    let recurringMonths = program.recurring_months;
    if (query.commissionPercent !== undefined) rule = { type: 'percent', value: percentToBasisPoints(query.commissionPercent) };
    if (query.commissionFlatCents !== undefined) rule = { type: 'flat', value: query.commissionFlatCents };
    if (query.groupId !== undefined) {
      const group = await programGroup(sql, programId, query.groupId);
      if (group.commission_type !== null) rule = { type: group.commission_type, value: group.commission_value! };
      recurringMonths = group.recurring_months;
    }
    if (query.everyRenewal === 'true') recurringMonths = null;
    if (query.recurringMonths !== undefined) recurringMonths = query.recurringMonths;
    const window = reportWindow({ period: query.period }, clock.now(), program.created_at);
    const rows = await previewByPartner(sql, programId, window.from, window.to, { ...rule, recurringMonths });
    const partners = rows.map((r) => ({
      partnerId: r.partner_id, name: r.name, sales: Number(r.sales), revenueCents: cents(r.revenue_cents), actualCents: cents(r.actual_cents), previewCents: cents(r.preview_cents),
    }));
    const sum = (pick: (p: (typeof partners)[number]) => number) => partners.reduce((total, p) => total + pick(p), 0);
    return {
      period: query.period,
      from: window.from.toISOString(),
      to: window.to.toISOString(),
      rule: commissionView(rule),
      recurringMonths,
      partners,
      totals: { sales: sum((p) => p.sales), revenueCents: sum((p) => p.revenueCents), actualCents: sum((p) => p.actualCents), previewCents: sum((p) => p.previewCents) },
    };
  });
}
