import type { Sql } from '../db.js';
import { initial } from './001-initial.js';
import { webhookDeferral } from './002-webhook-deferral.js';
import { testClicksUndated } from './003-test-clicks-undated.js';
import { customerClickRef } from './004-customer-click-ref.js';
import { eventPayloadKeptWhenSkipped } from './005-event-payload-kept-when-skipped.js';
import { clickVisitors } from './006-click-visitors.js';
import { commissionLifecycle } from './007-commission-lifecycle.js';
import { refunds } from './008-refunds.js';
import { payouts } from './009-payouts.js';
import { landingUrl } from './010-landing-url.js';
import { partnerSessions } from './011-partner-sessions.js';
import { signInCodes } from './012-sign-in-codes.js';
import { reportRollups } from './013-report-rollups.js';
import { outbox } from './014-outbox.js';
import { promotionCodes } from './015-promotion-codes.js';
import { fraud } from './016-fraud.js';
import { stripeApiKey } from './017-stripe-api-key.js';
import { applications, autoApprove } from './018-applications.js';
import { mailUnsubscribes } from './020-mail-unsubscribes.js';
import { groups } from './021-groups.js';
import { leadRewards } from './022-lead-rewards.js';
import { outboxTargets } from './023-outbox-targets.js';
import { outboxUnkeyed } from './024-outbox-unkeyed.js';

export type Migration = { version: number; name: string; sql: string };

/** Applied in order on open; each runs once, recorded in schema_migrations. Never edit a shipped one. */
export const migrations: readonly Migration[] = [
  initial, webhookDeferral, testClicksUndated, customerClickRef, eventPayloadKeptWhenSkipped, clickVisitors, commissionLifecycle, refunds, payouts,
  landingUrl, partnerSessions, signInCodes, reportRollups, outbox, promotionCodes, fraud, stripeApiKey, applications,
  autoApprove, mailUnsubscribes, groups, leadRewards, outboxTargets, outboxUnkeyed,
];

/**
 * Applies the migrations newer than the database's latest, each in a transaction of its own that
 * also records it in schema_migrations, so a failed one leaves the database at the one before.
 * Answers how many it applied. SQL both engines read alike; `runScript` runs a migration's text,
 * which may write rolled-up tables before a later migration rebuilds their rollups.
 */
export async function applyMigrations(sql: Sql, runScript: (text: string) => Promise<void>, migrations: readonly Migration[]): Promise<number> {
  await sql.run(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)',
  );
  const row = await sql.one<{ version: number | null }>('SELECT max(version) AS version FROM schema_migrations');
  const pending = migrations.filter((m) => m.version > (row?.version ?? 0));
  for (const migration of pending) {
    await sql.run('BEGIN');
    try {
      await runScript(migration.sql);
      await sql.run('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      await sql.run('COMMIT');
    } catch (error) {
      await sql.run('ROLLBACK');
      throw new Error(`migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`);
    }
  }
  return pending.length;
}
