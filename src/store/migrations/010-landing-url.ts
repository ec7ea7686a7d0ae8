import type { Migration } from './index.js';

/**
 * A program's landing URL: where its partner links send visitors (docs/tracking.md#landing-url). Existing
 * programs have none until it is set; their links answer the not-found page meanwhile.
 */
export const landingUrl: Migration = {
  version: 10,
  name: 'landing-url',
  sql: `
ALTER TABLE programs ADD COLUMN landing_url VARCHAR;
`,
};
