/** A cell: a number for BIGINT/INTEGER, epoch milliseconds or a Date for TIMESTAMP and DATE (its UTC day). */
export type Value = string | number | boolean | Date | null;

/** A column's values. */
export type ColumnValues = ArrayLike<Value>;

/** `rowCount` rows of one table given by column name. */
export type BulkRows = { table: string; columns: Record<string, ColumnValues>; rowCount: number };

/** Where the demo loader's rows go, part after part, inside one transaction. */
export interface BulkLoad {
  /**
   * The first of `count` new ids of `table` for rows this load appends, from the store's counters
   * and outside the load, so live writes during it never collide.
   */
  reserve(table: string, count: number): Promise<number>;
  append(rows: BulkRows): Promise<void>;
}
