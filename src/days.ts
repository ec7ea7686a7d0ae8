/** UTC calendar days, the unit every report row and every *_day column counts in (docs/api.md#time-and-the-one-clock). */
export const MS_PER_DAY = 86_400_000;

/** Days since 1970-01-01 of an epoch-milliseconds instant: its UTC calendar day, as DuckDB's DATE counts them. */
export function epochDay(ms: number): number {
  return Math.floor(ms / MS_PER_DAY);
}

/** The UTC calendar day of an instant as text, YYYY-MM-DD. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const HAS_OFFSET = /(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/**
 * A range bound as given to a report or an export: a date is the start (or, for an end, the last
 * millisecond) of that UTC day; a date-time is taken as given, UTC when it has no offset.
 */
export function boundInstant(value: string, end: boolean): Date {
  if (DATE_ONLY.test(value)) {
    const start = new Date(`${value}T00:00:00.000Z`);
    return end ? new Date(start.getTime() + MS_PER_DAY - 1) : start;
  }
  return new Date(HAS_OFFSET.test(value) ? value : `${value}Z`);
}
