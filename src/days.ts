/** UTC calendar days, the unit every report row and every *_day column counts in (docs/behaviour.md §1.4). */
export const MS_PER_DAY = 86_400_000;

/** Days since 1970-01-01 of an epoch-milliseconds instant: its UTC calendar day, as DuckDB's DATE counts them. */
export function epochDay(ms: number): number {
  return Math.floor(ms / MS_PER_DAY);
}

/** The UTC calendar day of an instant as text, YYYY-MM-DD. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}
