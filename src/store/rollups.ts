import { dayValue, list, type Sql } from './db.js';
import { MEASURES, PARTNER_MEASURES, PARTNER_TOTALS, SOURCES, TOTALS, type Measure, type Source } from './report-sources.js';

/*
 * PostgreSQL's report rollups (docs/architecture.md §18.5): `report_hours` holds what each source
 * of report-sources.ts sums to per program, enrollment and UTC hour, one row per writer, kept in
 * the statement that writes the events. Every process writes rows of its own writer id only, so
 * instances never update one row (a serialization conflict that would run a whole batch again);
 * reports add the writers' rows up. A report reads the rollups of the whole hours of its windows
 * and the events of the partial hours at their edges, so it answers what the DuckDB SQL answers,
 * which scans the events.
 */

/** The rollup column of a measure: leadStatus → lead_status. */
export const rollupColumn = (m: Measure) => m.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
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

/** Adds the sums of `parts` to the rows of the writer `writer` (SQL text); sums that add nothing write nothing. */
const upsert = (parts: string[], writer: string) => `
INSERT INTO report_hours AS r (program_id, hour, partner_program_id, writer, ${COLUMNS.join(', ')})
SELECT program_id, hour, partner_program_id, ${writer}, ${COLUMNS.map((c) => `sum(${c})`).join(', ')}
FROM (${parts.join('\n  UNION ALL ')}) AS s
GROUP BY program_id, hour, partner_program_id
HAVING ${COLUMNS.map((c) => `sum(${c}) <> 0`).join(' OR ')}
ON CONFLICT (program_id, hour, partner_program_id, writer) DO UPDATE SET ${COLUMNS.map((c) => `${c} = r.${c} + excluded.${c}`).join(', ')}`;

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

/** Instant ranges [lo, hi) of a window: whole hours read from the rollups, the partial ones from the events. */
type Cover = { whole: Array<[number, number]>; partial: Array<[number, number]> };

/**
 * Adds the instants from `start` up to `end` (exclusive, epoch ms) to a cover: the whole hours up
 * to `wholeEnd` (an hour is whole when every instant of it, to the microsecond, lies in the range)
 * and the parts before and after them, read from the events.
 */
function cover(into: Cover, start: number, wholeEnd: number, end: number): void {
  const lo = Math.ceil(start / HOUR_MS) * HOUR_MS;
  const hi = Math.floor(wholeEnd / HOUR_MS) * HOUR_MS;
  if (lo >= hi) {
    if (start < end) into.partial.push([start, end]);
    return;
  }
  into.whole.push([lo, hi]);
  if (start < lo) into.partial.push([start, lo]);
  if (hi < end) into.partial.push([hi, end]);
}

/**
 * The current window [from, to], both inclusive as the DuckDB SQL has them (an instant after `to`
 * by less than a millisecond is outside: its last hour is whole only when it ends by `to`, and the
 * events read are also cut at `to`), after the previous one [previousFrom, from) when given.
 */
function windowCover(from: number, to: number, previousFrom?: number): Cover {
  const c: Cover = { whole: [], partial: [] };
  if (previousFrom !== undefined) cover(c, previousFrom, from, from);
  cover(c, from, to, to + 1);
  return c;
}

const instants = (ranges: Array<[number, number]>, i: 0 | 1) => list(ranges.map((r) => new Date(r[i])));

/** How parts are grouped: the current window's day (NULL for the previous window, before $9), the enrollment, or the day of one enrollment ($9). */
type Split = 'window' | 'enrollment' | 'day';

const keyOf = (split: Split, at: string, enrollment: string) => {
  if (split === 'window') return `CASE WHEN ${at} >= $9 THEN CAST(${at} AS DATE) END AS day`;
  return split === 'enrollment' ? `${enrollment} AS enrollment` : `CAST(${at} AS DATE) AS day`;
};

/**
 * `parts`: the measures per key of the program $1, from the rollups of the whole hours ($3 … $4,
 * instant arrays) and the events of the partial ones ($5 … $6), each event cut at the window's end $2.
 */
function parts(split: Split, measures: readonly Measure[]): string {
  const oneEnrollment = (column: string) => (split === 'day' ? ` AND ${column} = $9` : '');
  const sources = SOURCES.filter((s) => measures.some((m) => m in s.sums) && (split === 'window' || s.enrollment !== null));
  return `parts AS (
  SELECT ${keyOf(split, 'r.hour', 'r.partner_program_id')}, ${measures.map((m) => `r.${rollupColumn(m)} AS "${m}"`).join(', ')}
  FROM unnest($3::TIMESTAMP[], $4::TIMESTAMP[]) AS w(lo, hi)
  JOIN report_hours r ON r.program_id = $1 AND r.hour >= w.lo AND r.hour < w.hi${oneEnrollment('r.partner_program_id')}
  ${sources
    .map(
      (s) => `UNION ALL
  SELECT ${keyOf(split, s.at, s.enrollment!)}, ${measures.map((m) => `${s.sums[m] ?? '0'} AS "${m}"`).join(', ')}
  FROM unnest($5::TIMESTAMP[], $6::TIMESTAMP[]) AS w(lo, hi)
  JOIN ${s.table} ON program_id = $1 AND ${s.at} >= w.lo AND ${s.at} < w.hi
  WHERE ${s.at} <= $2 AND ${s.day} IS NOT NULL AND ${s.where}${oneEnrollment(s.enrollment!)}
  GROUP BY 1`,
    )
    .join('\n  ')}
)`;
}

/** The parameters of `parts`: the program, the window's end and its cover. */
function coverParams(programId: number, w: { from: Date; to: Date }, previousFrom?: Date) {
  const c = windowCover(w.from.getTime(), w.to.getTime(), previousFrom?.getTime());
  return [programId, w.to, instants(c.whole, 0), instants(c.whole, 1), instants(c.partial, 0), instants(c.partial, 1)];
}

/** A day spine from $7 to $8 (DATEs). */
export const SPINE = `spine AS (SELECT CAST(d AS DATE) AS day FROM generate_series($7::TIMESTAMP, $8::TIMESTAMP, INTERVAL '1 day') AS g(d))`;

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
