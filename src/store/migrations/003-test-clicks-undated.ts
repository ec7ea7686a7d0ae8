import type { Migration } from './index.js';

/**
 * Test clicks never count in reports, so they get no report day: the report then selects clicks by
 * their stored day alone instead of also reading is_test over every click (with the day instead of
 * created_at, that halves the clicks part of a 90-day report at 10 M clicks: docs/benchmarks.md).
 */
export const testClicksUndated: Migration = {
  version: 3,
  name: 'test-clicks-undated',
  sql: `
ALTER TABLE clicks ALTER COLUMN day DROP NOT NULL;
UPDATE clicks SET day = NULL WHERE is_test;
`,
};
