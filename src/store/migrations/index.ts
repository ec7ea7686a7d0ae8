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

export type Migration = { version: number; name: string; sql: string };

/** Applied in order on open; each runs once, recorded in schema_migrations. Never edit a shipped one. */
export const migrations: readonly Migration[] = [
  initial, webhookDeferral, testClicksUndated, customerClickRef, eventPayloadKeptWhenSkipped, clickVisitors, commissionLifecycle, refunds, payouts,
  landingUrl, partnerSessions,
];
