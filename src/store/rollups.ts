import { dayValue, list, type Params, type Row, type Sql } from './db.js';
import { MEASURES, PARTNER_MEASURES, PARTNER_TOTALS, SOURCES, TOTALS, type Measure, type Source } from './report-sources.js';

/*
 * The report rollups (docs/rollups.md): `report_rollups` holds what each source of
 * report-sources.ts sums to per program, enrollment and UTC hour, and again per UTC day, one row per
 * writer, kept by every write of a rolled-up table (docs/rollups.md#how-writes-keep-them). On
 * PostgreSQL every process writes rows of its own writer id only, so instances never update one row
 * (a serialization conflict that would run a whole batch again); reports add the writers' rows up.
 * On DuckDB a write records its rows as pending and a periodic roll-up adds them
 * (docs/rollups.md#pending-rows). A report reads the rollups of the whole days and hours of its
 * windows with their pending rows, and the events of the partial hours at their edges, on both
 * engines with the same SQL (docs/rollups.md#how-reports-read-them).
 */

/** Writer id of the rows built in bulk (rollUpStored) and of DuckDB's one writer; a PostgreSQL process's own id is never 0. */
export const BULK_WRITER = 0;

/** The rollup column of a measure: leadStatus → lead_status. */
const rollupColumn = (m: Measure) => m.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const COLUMNS = MEASURES.map(rollupColumn);
const KEYS = ['program_id', 'span', 'starts_at', 'partner_program_id'] as const;

/** The tables whose rows the rollups sum. */
export const ROLLED_UP: ReadonlySet<string> = new Set(SOURCES.map((s) => s.table));
/** Whether reports read the table: then its appends and writes keep rollups. */
export const rollsUp = (table: string) => ROLLED_UP.has(table);

/** An UPDATE given by its parts, so that each engine can also find the rows it changes (docs/rollups.md#how-writes-keep-them). */
export type Update = {
  table: string;
  /** The table's alias in `set`, `from` and `where`. */
  alias?: string;
  set: string;
  /** Other tables joined, as UPDATE … FROM has them. */
  from?: string;
  where: string;
};

/** The UPDATE statement of an Update. */
export const updateText = (u: Update, returning = '') =>
  `UPDATE ${u.table}${u.alias ? ` AS ${u.alias}` : ''} SET ${u.set}${u.from ? ` FROM ${u.from}` : ''} WHERE ${u.where}${returning}`;

/**
 * The ids of the rows an Update changes, with its `params` parameters: each is also selected, as a
 * statement must use every parameter it is given and the SET's are not in this one.
 */
export const updatedIds = (u: Update, params: number) =>
  `SELECT ${[`${u.alias ?? u.table}.id`, ...Array.from({ length: params }, (_, i) => `$${i + 1} AS p${i + 1}`)].join(', ')} FROM ${u.table}${u.alias ? ` AS ${u.alias}` : ''}${u.from ? `, ${u.from}` : ''} WHERE ${u.where}`;

/**
 * Throws for a statement that inserts, updates or deletes rows of a rolled-up table: run() refuses
 * it, so no write path can leave the rollups behind (docs/rollups.md#the-refusal).
 */
export function refuseRolledUp(sql: string): void {
  const tables = [...sql.matchAll(/\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+(\w+)/gi)].map((m) => m[1].toLowerCase()).filter(rollsUp);
  if (tables.length > 0) throw new Error(`run() does not write ${tables.join(', ')}: the reports roll it up, so write() or append() does (docs/rollups.md#the-refusal)`);
}

/**
 * One source's sums per program, enrollment and hour over `rows`, rows with the table's columns;
 * `signed`: each row also carries a `sign`, 1 or −1, its sums are multiplied by.
 */
function sourceSums(s: Source, rows: string, signed: boolean): string {
  const value = (m: Measure) => {
    const sum = s.sums[m];
    if (sum === undefined) return '0';
    return signed ? `sign * ${sum}` : sum;
  };
  return `SELECT program_id, ${s.enrollment ?? 'id'} AS partner_program_id, date_trunc('hour', ${s.at}) AS hour,
    ${MEASURES.map((m) => `${value(m)} AS ${rollupColumn(m)}`).join(', ')}
  FROM ${rows} WHERE ${s.day} IS NOT NULL AND ${s.where} GROUP BY ${signed ? 'sign, ' : ''}1, 2, 3`;
}

/**
 * The sums of `parts` (per program, enrollment and hour) per hour and per day, as rows of the writer
 * `writer` (SQL text); sums that add nothing are left out. In time order, so a bulk build leaves
 * each day's rows on few pages, as reports read them.
 */
const rollupRows = (parts: string[], writer: string) => `
SELECT program_id, span, starts_at, partner_program_id, ${writer} AS writer, ${COLUMNS.map((c) => `sum(${c}) AS ${c}`).join(', ')}
FROM (${parts.join('\n  UNION ALL ')}) AS s,
  LATERAL (VALUES ('hour', s.hour), ('day', date_trunc('day', s.hour))) AS k(span, starts_at)
GROUP BY program_id, span, starts_at, partner_program_id
HAVING ${COLUMNS.map((c) => `sum(${c}) <> 0`).join(' OR ')}
ORDER BY program_id, span, starts_at`;

/** Adds rollupRows of `parts` to the stored rows, in one INSERT. */
const upsert = (parts: string[], writer: string) => `
INSERT INTO report_rollups AS r (${KEYS.join(', ')}, writer, ${COLUMNS.join(', ')})${rollupRows(parts, writer)}
ON CONFLICT (${KEYS.join(', ')}, writer) DO UPDATE SET ${COLUMNS.map((c) => `${c} = r.${c} + excluded.${c}`).join(', ')}`;

const sourcesOf = (table: string) => SOURCES.filter((s) => s.table === table);

/**
 * PostgreSQL's append (`insert`, an INSERT … SELECT of new rows of `table` without RETURNING) with
 * the rows' rollups in the same statement: they are summed from what the INSERT returns, so no table
 * is read (a read would take predicate locks other instances' appends conflict with). `writer` is
 * the parameter holding the writer id.
 */
export function appendWithRollups(table: string, insert: string, writer: string): string {
  return `WITH appended AS (${insert} RETURNING *)${upsert(
    sourcesOf(table).map((s) => sourceSums(s, 'appended', false)),
    `${writer}::BIGINT`,
  )}`;
}

/**
 * PostgreSQL's UPDATE with its rollups in the same statement: the rows as they were before it
 * (every statement of a WITH sees the same snapshot) are taken out, the rows it wrote are added.
 */
export function writeWithRollups(u: Update, writer: string): string {
  return `WITH written AS (${updateText(u, ` RETURNING ${u.alias ?? u.table}.*`)}),
changed AS (
  SELECT 1 AS sign, * FROM written
  UNION ALL SELECT -1, * FROM ${u.table} WHERE id = ANY(ARRAY(SELECT id FROM written))
)${upsert(
    sourcesOf(u.table).map((s) => sourceSums(s, 'changed', true)),
    `${writer}::BIGINT`,
  )}`;
}

/**
 * DuckDB's first part of a write (where a writable CTE does not exist): takes the sums of some rows
 * of `table` out of the writer's rollups, before the UPDATE changes them. The rows are those with
 * ids from $1 to $2 (a range the zone maps prune: ids grow with time), all of them when $3, else
 * those among $4 (takeOutParams).
 */
export function takeOutRows(table: string, writer: string): string {
  const rows = `(SELECT -1 AS sign, * FROM ${table} WHERE id BETWEEN $1 AND $2 AND ($3::BOOLEAN OR id = ANY($4::BIGINT[]))) AS ${table}`;
  return upsert(
    sourcesOf(table).map((s) => sourceSums(s, rows, true)),
    writer,
  );
}

/** The parameters of takeOutRows for the rows `ids` (not empty). */
export function takeOutParams(ids: Iterable<number>): Params {
  const unique = [...new Set(ids)];
  let lo = unique[0];
  let hi = unique[0];
  for (const id of unique) {
    if (id < lo) lo = id;
    if (id > hi) hi = id;
  }
  const whole = hi - lo + 1 === unique.length;
  return [lo, hi, whole, list(whole ? [lo] : unique)]; // an empty list has no type to bind
}

/**
 * The rows whose sums the rollups do not hold yet, as ranges of ids per table (docs/rollups.md#pending-rows):
 * on DuckDB a transaction records the rows it appended or updated here instead of rolling them up,
 * and a periodic roll-up adds their sums and empties it. Reports read these rows from the events.
 * On PostgreSQL it stays empty. Ranges never overlap, so no row is read twice.
 */
export const ROLLUPS_PENDING_SQL = 'CREATE TABLE rollups_pending (table_name VARCHAR NOT NULL, first_id BIGINT NOT NULL, last_id BIGINT NOT NULL);';

/** The pending rows of a source's table, as `table` (joined: the ranges' bounds prune the table's row groups). */
const pendingRows = (table: string) =>
  `${table} JOIN rollups_pending pending ON pending.table_name = '${table}' AND ${table}.id BETWEEN pending.first_id AND pending.last_id`;

/** What every pending row matching `filter` sums to, per source. */
const pendingParts = (filter = 'true') =>
  SOURCES.map((s) => sourceSums(s, `(SELECT ${s.table}.* FROM ${pendingRows(s.table)} WHERE ${filter}) AS ${s.table}`, false));

/**
 * Adds the sums of every pending row to the writer's rollups and forgets them, in two statements
 * of one transaction (docs/rollups.md#pending-rows).
 */
export const ROLL_UP_PENDING = [upsert(pendingParts(), String(BULK_WRITER)), 'DELETE FROM rollups_pending'] as const;

/** What every row of the event tables matching `filter` sums to, per source. */
const storedParts = (filter: string) => SOURCES.map((s) => sourceSums(s, `(SELECT * FROM ${s.table} WHERE ${filter}) AS ${s.table}`, false));

/**
 * The rollups of every row of the event tables matching `filter`, added to the writer `writer`:
 * built in bulk from rows already stored (the migrations that add rollups, the demo loaders).
 */
export function rollUpStored(filter: string, writer: string): string {
  return upsert(storedParts(filter), writer);
}

/** A rollup row that differs from what the events sum to: the stored sums (over writers) beside the rebuilt ones. */
export type RollupDrift = {
  program_id: number;
  span: 'hour' | 'day';
  starts_at: Date;
  partner_program_id: number;
  stored: Record<string, string>;
  rebuilt: Record<string, string>;
};

const notZero = COLUMNS.map((c) => `sum(${c}) <> 0`).join(' OR ');
const asText = (alias: string) => `${COLUMNS.map((c) => `CAST(coalesce(${alias}.${c}, 0) AS VARCHAR) AS ${alias}_${c}`).join(', ')}`;
const DRIFT_SQL = (filter: string) => `
WITH rebuilt AS (${rollupRows(storedParts(filter), '0')}),
stored AS (
  SELECT ${KEYS.join(', ')}, ${COLUMNS.map((c) => `sum(${c}) AS ${c}`).join(', ')}
  FROM (
    SELECT ${KEYS.join(', ')}, ${COLUMNS.join(', ')} FROM report_rollups WHERE ${filter}
    UNION ALL SELECT ${KEYS.join(', ')}, ${COLUMNS.join(', ')} FROM (${rollupRows(pendingParts(filter), '0')}) AS pending_sums
  ) AS r
  GROUP BY ${KEYS.join(', ')} HAVING ${notZero}
)
SELECT ${KEYS.map((k) => `coalesce(s.${k}, b.${k}) AS ${k}`).join(', ')}, ${asText('s')}, ${asText('b')}
FROM stored s FULL JOIN rebuilt b ON ${KEYS.map((k) => `b.${k} = s.${k}`).join(' AND ')}
WHERE ${COLUMNS.map((c) => `coalesce(s.${c}, 0) <> coalesce(b.${c}, 0)`).join(' OR ')}
ORDER BY 1, 2, 3, 4`;
const DRIFT = { all: DRIFT_SQL('true'), program: DRIFT_SQL('program_id = $1') };

/**
 * Where the stored rollups (of one program, or all), with the sums of the pending rows as reports
 * add them, differ from a rebuild from the events, with the very SQL that builds them in bulk; zero
 * rows are ignored. Empty when they agree (docs/rollups.md#the-check).
 */
export async function rollupDrift(sql: Sql, programId?: number): Promise<RollupDrift[]> {
  const rows = await (programId === undefined ? sql.all<Row>(DRIFT.all) : sql.all<Row>(DRIFT.program, [programId]));
  const side = (row: Row, alias: string) => Object.fromEntries(COLUMNS.map((c) => [c, String(row[`${alias}_${c}`])]));
  return rows.map((row) => ({
    program_id: row.program_id as number,
    span: row.span as 'hour' | 'day',
    starts_at: row.starts_at as Date,
    partner_program_id: row.partner_program_id as number,
    stored: side(row, 's'),
    rebuilt: side(row, 'b'),
  }));
}


const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Instant ranges [lo, hi) of a window: whole days and whole hours read from the rollups, the partial hours from the events. */
type Range = [number, number];
type Cover = { day: Range[]; hour: Range[]; partial: Range[] };
const SPANS = [['day', DAY_MS], ['hour', HOUR_MS]] as const;

/**
 * Adds the instants from `start` up to `end` (exclusive, epoch ms) to a cover: the whole spans (days,
 * then hours) inside, the parts before and after them by the next span, the rest read from the events.
 */
function cover(into: Cover, start: number, end: number, span = 0): void {
  if (span === SPANS.length) {
    if (start < end) into.partial.push([start, end]);
    return;
  }
  const [name, ms] = SPANS[span];
  const lo = Math.ceil(start / ms) * ms;
  const hi = Math.floor(end / ms) * ms;
  if (lo >= hi) return cover(into, start, end, span + 1);
  into[name].push([lo, hi]);
  cover(into, start, lo, span + 1);
  cover(into, hi, end, span + 1);
}

/** Adjacent ranges of one kind as one: fewer ranges, a simpler statement to plan. */
function merged(ranges: Range[]): Range[] {
  const out: Range[] = [];
  for (const [lo, hi] of ranges.toSorted((a, b) => a[0] - b[0])) {
    const last = out.at(-1);
    if (last && last[1] === lo) last[1] = hi;
    else out.push([lo, hi]);
  }
  return out;
}

/**
 * The current window [from, to], both inclusive to the millisecond, so up to the end of `to`'s
 * millisecond (docs/rollups.md#how-reports-read-them): a window that ends at 23:59:59.999 is whole
 * days. After the previous one [previousFrom, from) when given.
 */
function windowCover(from: number, to: number, previousFrom?: number): Cover {
  const c: Cover = { day: [], hour: [], partial: [] };
  if (previousFrom !== undefined) cover(c, previousFrom, from);
  cover(c, from, to + 1);
  return { day: merged(c.day), hour: merged(c.hour), partial: merged(c.partial) };
}

/**
 * Where a statement's parameters are, for a cover with so many ranges of each kind: the program
 * $1, each kind's bounds, a stored day per partial range, then the key's
 * instant or enrollment, and a day spine's first and last day. Each shape of cover gets a statement of
 * its own, with only the ranges it has: DuckDB plans a statement at each run (its parameters' values
 * prune row groups), and an OR of unused ranges tripled the planning of a 90-day report.
 */
type Layout = { shape: Record<keyof Cover, number>; first: Record<keyof Cover, number>; partialDay: number; spineFrom: number; key: number; pending: ReadonlySet<string> };

/** `pending`: the tables with pending rows, which the statement then reads (a branch per source of those tables). */
function layoutOf(c: Cover, pending: ReadonlySet<string>): Layout {
  const shape = { day: c.day.length, hour: c.hour.length, partial: c.partial.length };
  const first = { day: 2, hour: 2 + 2 * shape.day, partial: 2 + 2 * (shape.day + shape.hour) };
  const partialDay = first.partial + 2 * shape.partial;
  const key = partialDay + shape.partial;
  return { shape, first, partialDay, key, spineFrom: key + 1, pending };
}

/** A kind's ranges as one condition on `column` ('false' for none). */
const inRanges = (column: string, kind: keyof Cover, l: Layout) =>
  l.shape[kind] === 0
    ? 'false'
    : `(${Array.from({ length: l.shape[kind] }, (_, i) => `${column} >= $${l.first[kind] + 2 * i} AND ${column} < $${l.first[kind] + 2 * i + 1}`).join(' OR ')})`;

/**
 * The partial ranges as a condition on an instant `column` and its stored day `day`: a partial hour
 * lies inside one day, named by a parameter of its own, which DuckDB prunes row groups by.
 */
const inPartials = (column: string, day: string, l: Layout) =>
  `(${Array.from({ length: l.shape.partial }, (_, i) => `${column} >= $${l.first.partial + 2 * i} AND ${column} < $${l.first.partial + 2 * i + 1} AND ${day} = $${l.partialDay + i}`).join(' OR ')})`;

/** How parts are grouped: the current window's day (NULL for the previous window, before the key's instant), the enrollment, or the day of one enrollment (the key's). */
type Split = 'window' | 'enrollment' | 'day';

const keyOf = (split: Split, at: string, enrollment: string, l: Layout) => {
  if (split === 'window') return `CASE WHEN ${at} >= $${l.key} THEN CAST(${at} AS DATE) END AS day`;
  return split === 'enrollment' ? `${enrollment} AS enrollment` : `CAST(${at} AS DATE) AS day`;
};

/**
 * `parts`: the measures per key of the program $1, from the rollups of the whole days and hours
 * with their pending rows (docs/rollups.md#pending-rows), and the events of the partial hours.
 * Every parameter of the layout is used (both engines refuse one a statement does not use).
 */
function parts(split: Split, measures: readonly Measure[], l: Layout): string {
  const oneEnrollment = (column: string) => (split === 'day' ? ` AND ${column} = $${l.key}` : '');
  const sources = SOURCES.filter((s) => measures.some((m) => m in s.sums) && (split === 'window' || s.enrollment !== null));
  const select = (s: Source) => `SELECT ${keyOf(split, s.at, s.enrollment!, l)}, ${measures.map((m) => `${s.sums[m] ?? '0'} AS "${m}"`).join(', ')}`;
  const whole = l.shape.day + l.shape.hour > 0;
  // A branch per span: its filters are then plain conditions the scan applies (an OR of the two
  // took a third longer). Its rows go to the statement's one grouping ungrouped: a grouping of
  // their own cost DuckDB a millisecond of a 90-day report's five.
  const rollupBranch = (span: 'day' | 'hour') => `SELECT ${keyOf(split, 'starts_at', 'partner_program_id', l)}, ${measures.map((m) => `${rollupColumn(m)} AS "${m}"`).join(', ')}
  FROM report_rollups
  WHERE program_id = $1 AND span = '${span}' AND ${inRanges('starts_at', span, l)}${oneEnrollment('partner_program_id')}`;
  const branches = [
    ...(['day', 'hour'] as const).filter((span) => l.shape[span] > 0).map(rollupBranch),
    ...(whole
      ? sources.filter((s) => l.pending.has(s.table)).map(
          (s) => `${select(s)}
  FROM ${pendingRows(s.table)}
  WHERE program_id = $1 AND (${inRanges(s.at, 'day', l)} OR ${inRanges(s.at, 'hour', l)}) AND ${s.day} IS NOT NULL AND ${s.where}${oneEnrollment(s.enrollment!)}
  GROUP BY 1`,
        )
      : []),
    ...(l.shape.partial > 0
      ? sources.map(
          (s) => `${select(s)}
  FROM ${s.table} WHERE program_id = $1 AND ${inPartials(s.at, s.day, l)} AND ${s.where}${oneEnrollment(s.enrollment!)}
  GROUP BY 1`,
        )
      : []),
  ];
  return `parts AS (
  ${branches.join('\n  UNION ALL\n  ')}
)`;
}

/**
 * A window's cover, the layout of its statement's parameters, and the parameters of `parts`: the
 * program, the window's end and the ranges. `pending`: the tables with pending rows.
 */
function coverOf(pending: ReadonlySet<string>, programId: number, w: { from: Date; to: Date }, previousFrom?: Date) {
  const c = windowCover(w.from.getTime(), w.to.getTime(), previousFrom?.getTime());
  const bounds = (kind: keyof Cover) => c[kind].flatMap(([lo, hi]) => [new Date(lo), new Date(hi)]);
  const partialDays = c.partial.map(([lo]) => dayValue(new Date(lo)));
  const layout = layoutOf(c, pending);
  const shapeKey = `${layout.shape.day}.${layout.shape.hour}.${layout.shape.partial}.${[...pending].sort().join(',')}`;
  return { layout, shapeKey, params: [programId, ...bounds('day'), ...bounds('hour'), ...bounds('partial'), ...partialDays] };
}

/** A spine of the days of the window. */
const spine = (l: Layout) =>
  `spine AS (SELECT CAST(d AS DATE) AS day FROM generate_series($${l.spineFrom}::TIMESTAMP, $${l.spineFrom + 1}::TIMESTAMP, INTERVAL '1 day') AS g(d))`;

/** A statement's text per shape of cover, made once. */
function perShape(make: (l: Layout) => string): (cover: { layout: Layout; shapeKey: string }) => string {
  const texts = new Map<string, string>();
  return ({ layout, shapeKey }) => {
    let text = texts.get(shapeKey);
    if (text === undefined) texts.set(shapeKey, (text = make(layout)));
    return text;
  };
}

/*
 * The program report's sums: a row per day of the current window that has any, and one row (day
 * NULL) of the previous window's totals; the days without any are filled in by the caller, which
 * costs less than a spine joined in the statement.
 */
const performanceSql = perShape(
  (l) => `
WITH ${parts('window', MEASURES, l)}
SELECT CAST(day AS VARCHAR) AS day, ${TOTALS} FROM parts GROUP BY day
`,
);

/** The program report's sums by day of the current window (null: the previous window's totals), days without any left out. */
export function performanceRows<T>(sql: Sql, programId: number, w: { from: Date; to: Date; previousFrom: Date }): Promise<T[]> {
  return sql.withPendingTables((pending) => {
    const c = coverOf(pending, programId, w, w.previousFrom);
    return sql.all<T>(performanceSql(c), [...c.params, w.from]);
  });
}

/**
 * The rows of a statement over the partner measures of the current window: `template` makes its
 * text from the CTEs `parts` and `sums` (per enrollment, or per day of the enrollment
 * `enrollmentId`, then with a `spine` of the window's days too), once per shape of cover.
 */
export function partnerRows<T>(
  sql: Sql,
  template: (ctes: string) => string,
  programId: number,
  w: { from: Date; to: Date },
  enrollmentId?: number,
): Promise<T[]> {
  const split = enrollmentId === undefined ? 'enrollment' : 'day';
  const statement = partnerTexts.get(template) ?? perShape((l) => template(partnerCtes(split, l)));
  partnerTexts.set(template, statement);
  return sql.withPendingTables((pending) => {
    const c = coverOf(pending, programId, w);
    return sql.all<T>(statement(c), enrollmentId === undefined ? c.params : [...c.params, enrollmentId, dayValue(w.from), dayValue(w.to)]);
  });
}

const partnerTexts = new WeakMap<(ctes: string) => string, ReturnType<typeof perShape>>();

const partnerCtes = (split: 'enrollment' | 'day', l: Layout) => `
${parts(split, PARTNER_MEASURES, l)},
sums AS (SELECT ${split}, ${PARTNER_TOTALS} FROM parts GROUP BY ${split})${split === 'day' ? `,\n${spine(l)}` : ''}`;
