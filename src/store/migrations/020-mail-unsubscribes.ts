import type { Migration } from './index.js';

/**
 * Who switched off which kind of mail (docs/mail.md#notifications-and-unsubscribing): one row per
 * address (lower case) and kind; no row, the kind is on. The same SQL on both engines.
 */
export const MAIL_UNSUBSCRIBES_SQL = `
CREATE TABLE mail_unsubscribes (email VARCHAR NOT NULL, kind VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL, PRIMARY KEY (email, kind));
`;

export const mailUnsubscribes: Migration = { version: 20, name: 'mail-unsubscribes', sql: MAIL_UNSUBSCRIBES_SQL };
