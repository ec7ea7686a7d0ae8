import type { Migration } from './index.js';

/**
 * Partner applications (docs/applications.md#how-an-application-is-stored): one row per program and
 * e-mail (lower case), pending until a member approves or rejects it; approval names the partner it
 * enrolled. A program takes applications unless it closed its page, and may approve them at once.
 * The same SQL on both engines.
 */
export const APPLICATIONS_SQL = `
CREATE TABLE partner_applications (
  id BIGINT PRIMARY KEY, program_id BIGINT NOT NULL, email VARCHAR NOT NULL, name VARCHAR NOT NULL, website VARCHAR, message VARCHAR,
  status VARCHAR NOT NULL, reason VARCHAR, partner_id BIGINT, created_at TIMESTAMP NOT NULL, decided_at TIMESTAMP,
  UNIQUE (program_id, email)
);
ALTER TABLE programs ADD COLUMN applications_open BOOLEAN DEFAULT true;
`;

/** The second setting: DuckDB cannot commit two ALTERs of one table with rows in one transaction. */
export const AUTO_APPROVE_SQL = 'ALTER TABLE programs ADD COLUMN auto_approve BOOLEAN DEFAULT false';

export const applications: Migration = { version: 18, name: 'applications', sql: APPLICATIONS_SQL };
export const autoApprove: Migration = { version: 19, name: 'auto-approve', sql: AUTO_APPROVE_SQL };
