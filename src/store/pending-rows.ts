/*
 * Which rows of the rolled-up tables are pending on DuckDB, as its one writer knows them
 * (docs/rollups.md#pending-rows): the ranges of ids rollups_pending holds, and what the open
 * transaction wrote. Plain bookkeeping; the store writes the ranges and runs the roll-up.
 */

/** A row of rollups_pending. */
export type PendingRange = { table_name: string; first_id: number; last_id: number };

/**
 * How many ids past its last appended row a transaction's range covers: the next transactions'
 * appends, whose ids follow, are then pending already and write no range of their own.
 */
export const IDS_AHEAD = 10_000;

export class PendingRows {
  /** The ranges rollups_pending holds, as committed, per table. */
  private readonly ranges = new Map<string, Array<[number, number]>>();
  /** Rows the open transaction appended, or updated, that no range covers. */
  private readonly appended = new Map<string, Set<number>>();
  private readonly updated = new Map<string, Set<number>>();
  /** The ranges the open transaction records at its COMMIT (toRecord). */
  private recording: PendingRange[] = [];
  /** Rows the open transaction wrote, covered or not. */
  private written = 0;
  /** Rows written since the last roll-up. */
  rows = 0;
  /**
   * How many transactions about to commit had pending rows of a table no committed range has: a
   * report that sees this number change while it reads may have missed that table's rows.
   */
  additions = 0;

  /** The tables with pending rows: committed, or recorded by the transaction about to commit. */
  tables(): ReadonlySet<string> {
    return new Set([...this.ranges.keys(), ...this.recording.map((r) => r.table_name)]);
  }

  /** Whether the row is pending: a range covers it, or the open transaction wrote it. */
  has(table: string, id: number): boolean {
    return this.covered(table, id) || this.appended.get(table)?.has(id) === true || this.updated.get(table)?.has(id) === true;
  }

  /** New rows of the open transaction. */
  append(table: string, ids: readonly number[]): void {
    this.add(this.appended, table, ids);
  }

  /** Rows the open transaction updated. */
  update(table: string, ids: readonly number[]): void {
    this.add(this.updated, table, ids);
  }

  /**
   * The ranges the open transaction adds to rollups_pending: the rows it wrote that no range
   * covers, consecutive ids as one range; the range of its last appended row reaches IDS_AHEAD
   * ids further. Its new rows have the highest ids there are (ids are allocated in the
   * transaction, one transaction at a time), so no row outside a range falls in one.
   */
  toRecord(): PendingRange[] {
    this.recording = [];
    for (const table of new Set([...this.appended.keys(), ...this.updated.keys()])) {
      const appended = this.appended.get(table) ?? new Set<number>();
      const ranges = idRanges([...appended, ...(this.updated.get(table) ?? [])]);
      if (appended.size > 0) ranges[ranges.length - 1][1] += IDS_AHEAD;
      for (const [first, last] of ranges) this.recording.push({ table_name: table, first_id: first, last_id: last });
    }
    if (this.recording.some((r) => !this.ranges.has(r.table_name))) this.additions++;
    return this.recording;
  }

  /** After the COMMIT: the recorded ranges are pending. */
  commit(): void {
    for (const r of this.recording) {
      let ranges = this.ranges.get(r.table_name);
      if (!ranges) this.ranges.set(r.table_name, (ranges = []));
      ranges.push([r.first_id, r.last_id]);
    }
    this.rows += this.written;
    this.discard();
  }

  /** After a ROLLBACK: nothing the transaction wrote exists. */
  discard(): void {
    this.appended.clear();
    this.updated.clear();
    this.recording = [];
    this.written = 0;
  }

  /** After a roll-up committed: nothing is pending. */
  clear(): void {
    this.ranges.clear();
    this.rows = 0;
  }

  /** The last id a range of the table covers (0 for none): ids handed out past the writer's transactions start after it. */
  end(table: string): number {
    return Math.max(0, ...(this.ranges.get(table) ?? []).map(([, last]) => last));
  }

  private covered(table: string, id: number): boolean {
    return this.ranges.get(table)?.some(([first, last]) => id >= first && id <= last) === true;
  }

  private add(into: Map<string, Set<number>>, table: string, ids: readonly number[]): void {
    this.written += ids.length;
    let set = into.get(table);
    if (!set) into.set(table, (set = new Set()));
    for (const id of ids) if (!this.covered(table, id)) set.add(id);
  }
}

/** Ranges of consecutive ids, in order. */
export function idRanges(ids: Iterable<number>): Array<[number, number]> {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const ranges: Array<[number, number]> = [];
  for (const id of sorted) {
    const last = ranges.at(-1);
    if (last && id === last[1] + 1) last[1] = id;
    else ranges.push([id, id]);
  }
  return ranges;
}
