import type { Migration } from './index.js';

/**
 * Sign-in codes and partner status (docs/sessions.md): a sign-in link carries a one-time code,
 * stored as its SHA-256 like a session token, for either a user (dashboard) or a partner (portal),
 * with its own 15-minute expiry and the expiry of the session it opens. A partner is active or
 * inactive; existing partners are active. The same SQL on both engines.
 */
export const SIGN_IN_CODES_SQL = `
CREATE TABLE sign_in_codes (
  code_hash VARCHAR PRIMARY KEY,
  user_id BIGINT,
  partner_id BIGINT,
  created_at TIMESTAMP NOT NULL,
  expires_at TIMESTAMP NOT NULL,
  session_expires_at TIMESTAMP NOT NULL
);
ALTER TABLE partners ADD COLUMN status VARCHAR DEFAULT 'active';
`;

export const signInCodes: Migration = { version: 12, name: 'sign-in-codes', sql: SIGN_IN_CODES_SQL };
