import type { Migration } from './index.js';

/**
 * Partner sessions: the partner portal's magic-link tokens (docs/pages.md#partner-sessions), stored as the
 * SHA-256 of the token with an expiry, like dashboard sessions; a sign-out deletes the row.
 */
export const partnerSessions: Migration = {
  version: 11,
  name: 'partner-sessions',
  sql: `
CREATE TABLE partner_sessions (
  token_hash VARCHAR PRIMARY KEY,
  partner_id BIGINT NOT NULL,
  created_at TIMESTAMP NOT NULL,
  expires_at TIMESTAMP NOT NULL
);
`,
};
