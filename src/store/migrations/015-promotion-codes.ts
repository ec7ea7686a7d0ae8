import type { Migration } from './index.js';

/**
 * Promotion codes (docs/promotion-codes.md): a program's codes, each bound to one enrollment, keyed
 * by programKey(program, lower-cased code) so a code is unique per program in any case; removing one
 * sets removed_at and keeps the key taken. `code_sales` remembers which sales a code attributed
 * (one row per such sale, append-only): the per-partner report counts them there, apart from the
 * rollups, whose migrations build them from the measures of the code that runs them. The same SQL
 * on both engines.
 */
export const PROMOTION_CODES_SQL = `
CREATE TABLE promotion_codes (
  id BIGINT PRIMARY KEY, code_key VARCHAR NOT NULL UNIQUE, program_id BIGINT NOT NULL, partner_program_id BIGINT NOT NULL,
  code VARCHAR NOT NULL, stripe_promotion_code VARCHAR, created_at TIMESTAMP NOT NULL, removed_at TIMESTAMP
);
CREATE TABLE code_sales (
  sale_id BIGINT PRIMARY KEY, program_id BIGINT NOT NULL, partner_program_id BIGINT NOT NULL, promotion_code_id BIGINT NOT NULL,
  paid_at TIMESTAMP NOT NULL
);
`;

export const promotionCodes: Migration = { version: 15, name: 'promotion-codes', sql: PROMOTION_CODES_SQL };
