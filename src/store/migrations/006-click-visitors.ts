import type { Migration } from './index.js';

/**
 * Unique clicks (docs/tracking.md#unique-clicks): a click keeps its visitor's salted hash, never the
 * address, so the check holds across restarts; the installation's salt is kept in `settings`
 * (written by the first click the installation records). Older clicks have no visitor.
 */
export const clickVisitors: Migration = {
  version: 6,
  name: 'click-visitors',
  sql: `
CREATE TABLE settings (name VARCHAR PRIMARY KEY, value VARCHAR NOT NULL);
ALTER TABLE clicks ADD COLUMN visitor_hash BIGINT;
`,
};
