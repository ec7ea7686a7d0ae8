import { dayValue, type Sql } from './db.js';
import { MEASURES, PARTNER_MEASURES, PARTNER_TOTALS, SOURCES, TOTALS, type Measure, type Source } from './report-sources.js';

/*
 * PostgreSQL's report rollups (docs/rollups.md): `report_rollups` holds what each source
 * of report-sources.ts sums to per program, enrollment and UTC hour, and again per UTC day, one row
 * per writer, kept in the statement that writes the events. Every process writes rows of its own
 * writer id only, so instances never update one row (a serialization conflict that would run a
 * whole batch again); reports add the writers' rows up. A report reads the rollups of the whole
 * days and hours of its windows and the events of the partial hours at their edges, so it answers
 * what the DuckDB SQL answers, which scans the events.
 */

/** The rollup column of a measure: leadStatus → lead_status. */
const rollupColumn = (m: Measure) => m.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const COLUMNS = MEASURES.map(rollupColumn);

const ROLLED_UP = new Set(SOURCES.map((s) => s.table));
/** Whether reports read the table: then its appends and writes keep rollups. */
export const rollsUp = (table: string) => ROLLED_UP.has(table);

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
 * Adds the sums of `parts` (per program, enrollment and hour) to the writer's rows of their hours
 * and of their days, in one INSERT; `writer` is SQL text. Sums that add nothing write nothing. New
 * rows go in time order, so a bulk build leaves each day's rows on few pages, as reports read them.
 */
const upsert = (parts: string[], writer: string) => `
INSERT INTO report_rollups AS r (program_id, span, starts_at, partner_program_id, writer, ${COLUMNS.join(', ')})
SELECT program_id, span, starts_at, partner_program_id, ${writer}, ${COLUMNS.map((c) => `sum(${c})`).join(', ')}
FROM (${parts.join('\n  UNION ALL ')}) AS s,
  LATERAL (VALUES ('hour', s.hour), ('day', date_trunc('day', s.hour))) AS k(span, starts_at)
GROUP BY program_id, span, starts_at, partner_program_id
HAVING ${COLUMNS.map((c) => `sum(${c}) <> 0`).join(' OR ')}
ORDER BY program_id, span, starts_at
ON CONFLICT (program_id, span, starts_at, partner_program_id, writer) DO UPDATE SET ${COLUMNS.map((c) => `${c} = r.${c} + excluded.${c}`).join(', ')}`;

const sourcesOf = (table: string) => SOURCES.filter((s) => s.table === table);

/**
 * An append (`insert`, an INSERT … SELECT of new rows of `table` without RETURNING) with the rows'
 * rollups in the same statement: they are summed from what the INSERT returns, so no table is read
 * (a read would take predicate locks other instances' appends conflict with). `writer` is the
 * parameter holding the writer id.
 */
export function appendWithRollups(table: string, insert: string, writer: string): string {
  return `WITH appended AS (${insert} RETURNING *)${upsert(
    sourcesOf(table).map((s) => sourceSums(s, 'appended', false)),
    `${writer}::BIGINT`,
  )}`;
}

/**
 * An INSERT or UPDATE of rows of `table` (naming the table without an alias, without RETURNING)
 * with their rollups in the same statement: the rows as they were before it (every statement of a
 * WITH sees the same snapshot) are taken out, the rows it wrote are added.
 */
export function writeWithRollups(table: string, statement: string, writer: string): string {
  return `WITH written AS (${statement} RETURNING ${table}.*),
changed AS (
  SELECT 1 AS sign, * FROM written
  UNION ALL SELECT -1, * FROM ${table} WHERE id = ANY(ARRAY(SELECT id FROM written))
)${upsert(
    sourcesOf(table).map((s) => sourceSums(s, 'changed', true)),
    `${writer}::BIGINT`,
  )}`;
}

/**
 * The rollups of every row of the event tables matching `filter`, added to the writer `writer`:
 * built in bulk from rows already stored (the migration that adds rollups, the demo loader).
 */
export function rollUpStored(filter: string, writer: string): string {
  return upsert(
    SOURCES.map((s) => sourceSums(s, `(SELECT * FROM ${s.table} WHERE ${filter}) AS ${s.table}`, false)),
    writer,
  );
}

/** Writer id of the rows built in bulk (rollUpStored); a process's own id is never 0. */
export const BULK_WRITER = 0;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** Instant ranges [lo, hi) of a window: whole days and whole hours read from the rollups, the partial hours from the events. */
type Range = [number, number];
type Cover = { day: Range[]; hour: Range[]; partial: Range[] };
const SPANS = [['day', DAY_MS], ['hour', HOUR_MS]] as const;

/**
 * Adds the instants from `start` up to `end` (exclusive, epoch ms) to a cover: the whole spans (days,
 * then hours) up to `wholeEnd` (a span is whole when every instant of it, to the microsecond, lies
 * in the range), the parts before and after them by the next span, the rest read from the events.
 */
function cover(into: Cover, start: number, wholeEnd: number, end: number, span = 0): void {
  if (span === SPANS.length) {
    if (start < end) into.partial.push([start, end]);
    return;
  }
  const [name, ms] = SPANS[span];
  const lo = Math.ceil(start / ms) * ms;
  const hi = Math.floor(wholeEnd / ms) * ms;
  if (lo >= hi) return cover(into, start, wholeEnd, end, span + 1);
  into[name].push([lo, hi]);
  cover(into, start, lo, lo, span + 1);
  cover(into, hi, wholeEnd, end, span + 1);
}

/**
 * The current window [from, to], both inclusive as the DuckDB SQL has them (an instant after `to`
 * by less than a millisecond is outside: a span is whole only when it ends by `to`, and the events
 * read are also cut at `to`), after the previous one [previousFrom, from) when given.
 */
function windowCover(from: number, to: number, previousFrom?: number): Cover {
  const c: Cover = { day: [], hour: [], partial: [] };
  if (previousFrom !== undefined) cover(c, previousFrom, from, from);
  cover(c, from, to, to + 1);
  return c;
}

/**
 * The most ranges of each kind a cover has (two windows: a range of days each, the hours and the
 * partial hours before and after it), and the parameter each kind's bounds start at.
 */
const RANGES = { day: 2, hour: 4, partial: 4 } as const;
const FIRST = { day: 3, hour: 3 + 2 * RANGES.day, partial: 3 + 2 * (RANGES.day + RANGES.hour) } as const;
/** The parameters after the cover's: a day spine's first and last day, and the key's instant or enrollment. */
const SPINE_FROM = FIRST.partial + 2 * RANGES.partial;
const KEY = SPINE_FROM + 2;

/** A kind's ranges as one condition on `column`. */
const inRanges = (column: string, kind: keyof Cover) =>
  `(${Array.from({ length: RANGES[kind] }, (_, i) => `${column} >= $${FIRST[kind] + 2 * i} AND ${column} < $${FIRST[kind] + 2 * i + 1}`).join(' OR ')})`;

/**
 * A kind's ranges as bound parameters, the unused ones empty: scalar bounds give the planner each
 * range's rows (joined from an array, a range of 0 events was planned as a scan of 10 M).
 */
const bounds = (c: Cover, kind: keyof Cover) =>
  Array.from({ length: RANGES[kind] }, (_, i) => c[kind][i] ?? [0, 0]).flatMap(([lo, hi]) => [new Date(lo), new Date(hi)]);

/** How parts are grouped: the current window's day (NULL for the previous window, before the key's instant), the enrollment, or the day of one enrollment (the key's). */
type Split = 'window' | 'enrollment' | 'day';

const keyOf = (split: Split, at: string, enrollment: string) => {
  if (split === 'window') return `CASE WHEN ${at} >= $${KEY} THEN CAST(${at} AS DATE) END AS day`;
  return split === 'enrollment' ? `${enrollment} AS enrollment` : `CAST(${at} AS DATE) AS day`;
};

/**
 * `parts`: the measures per key of the program $1, from the rollups of the whole days and hours
 * and the events of the partial hours, each event cut at the window's end $2.
 */
function parts(split: Split, measures: readonly Measure[]): string {
  const oneEnrollment = (column: string) => (split === 'day' ? ` AND ${column} = $${KEY}` : '');
  const sources = SOURCES.filter((s) => measures.some((m) => m in s.sums) && (split === 'window' || s.enrollment !== null));
  return `parts AS (
  SELECT ${keyOf(split, 'starts_at', 'partner_program_id')}, ${measures.map((m) => `sum(${rollupColumn(m)}) AS "${m}"`).join(', ')}
  FROM report_rollups
  WHERE program_id = $1 AND (span = 'day' AND ${inRanges('starts_at', 'day')} OR span = 'hour' AND ${inRanges('starts_at', 'hour')})${oneEnrollment('partner_program_id')}
  GROUP BY 1
  ${sources
    .map(
      (s) => `UNION ALL
  SELECT ${keyOf(split, s.at, s.enrollment!)}, ${measures.map((m) => `${s.sums[m] ?? '0'} AS "${m}"`).join(', ')}
  FROM ${s.table} WHERE program_id = $1 AND ${inRanges(s.at, 'partial')} AND ${s.at} <= $2
    AND ${s.day} IS NOT NULL AND ${s.where}${oneEnrollment(s.enrollment!)}
  GROUP BY 1`,
    )
    .join('\n  ')}
)`;
}

/** The parameters of `parts`: the program, the window's end and its cover. */
function coverParams(programId: number, w: { from: Date; to: Date }, previousFrom?: Date) {
  const c = windowCover(w.from.getTime(), w.to.getTime(), previousFrom?.getTime());
  return [programId, w.to, ...bounds(c, 'day'), ...bounds(c, 'hour'), ...bounds(c, 'partial')];
}

/** A spine of the days of the window. */
export const SPINE = `spine AS (SELECT CAST(d AS DATE) AS day FROM generate_series($${SPINE_FROM}::TIMESTAMP, $${SPINE_FROM + 1}::TIMESTAMP, INTERVAL '1 day') AS g(d))`;

/*
 * The program report: a row per day of the current window, zeros included, and one row (day NULL)
 * of the previous window's totals.
 */
const PERFORMANCE_SQL = `
WITH ${parts('window', MEASURES)},
${SPINE}
SELECT to_char(s.day, 'YYYY-MM-DD') AS day, ${TOTALS}
FROM spine s LEFT JOIN parts p ON p.day = s.day
GROUP BY s.day
UNION ALL
SELECT NULL, ${TOTALS} FROM parts WHERE day IS NULL
ORDER BY day NULLS FIRST
`;

/** The program report's rows: the previous window's totals first (day null), then the current window's days. */
export function performanceRows<T>(sql: Sql, programId: number, w: { from: Date; to: Date; previousFrom: Date }): Promise<T[]> {
  return sql.all<T>(PERFORMANCE_SQL, [...coverParams(programId, w, w.previousFrom), dayValue(w.from), dayValue(w.to), w.from]);
}

/** `parts` and `sums`: the partner measures per enrollment or per day of the current window. */
export const partnerSums = (split: 'enrollment' | 'day') => `
${parts(split, PARTNER_MEASURES)},
sums AS (SELECT ${split}, ${PARTNER_TOTALS} FROM parts GROUP BY ${split})`;

/** The parameters of partnerSums: those of `parts`, and for a partner's days the spine's days and the enrollment. */
export function partnerParams(programId: number, w: { from: Date; to: Date }, enrollmentId?: number) {
  const params = coverParams(programId, w);
  return enrollmentId === undefined ? params : [...params, dayValue(w.from), dayValue(w.to), enrollmentId];
}
