import type { Clock } from '../clock.js';
import type { ExportSettings } from '../domain/exports.js';
import type { StripeApi } from '../domain/stripe/reconcile.js';
import type { MailSettings } from '../domain/mail/settings.js';
import type { Store } from '../store/db.js';
import type { ConnectionTimeouts } from './connections.js';
import type { RateLimit } from './rate-limits.js';
import type { RequestLog } from './request-log.js';
import type { TrustProxy } from './trust-proxy.js';

// What the app is built from: buildApp (src/app.ts) takes it and hands it to every route module,
// which import it from here, so no route module imports the app that loads it.
export type AppDeps = {
  store: Store;
  clock: Clock;
  /** SHA-256 of the instance admin token. */
  adminTokenHash: string;
  /** Requests per window per API key on the tracking API (docs/api.md#rate-limits: default 100 per second). */
  rateLimit: RateLimit;
  /** serve's request log (docs/tracking.md#request-log); without one nothing is logged. */
  log?: RequestLog;
  /** How long clients may take (docs/tracking.md#connections-and-timeouts); the defaults when absent. */
  connections?: ConnectionTimeouts;
  // Abuse of the public edge (docs/tracking.md#unique-clicks, docs/api.md#rate-limits):
  /** Unique clicks (0 minutes: off) and the click endpoint's limit per client address. */
  clicks: { dedupMinutes: number; rateLimit: RateLimit };
  /** Requests with an unknown API key per window per client address. */
  authFailureLimit: RateLimit;
  /** Which peers are proxies whose X-Forwarded-For names the client; else the socket's address is the client. */
  trustProxy: TrustProxy;
  /**
   * Data exports at once, their files' directory and a stalled reader's time (docs/exports.md);
   * each absent one has its default, the directory the system's temporary one.
   */
  exports?: Partial<ExportSettings>;
  /**
   * Serve the OpenAPI document at /openapi.json (default true). The CLI's in-process app, which no
   * command asks for it, leaves it out: its plugin loads a YAML library, ~80 ms of every command
   * that opens the data dir (docs/architecture.md#command-start-up).
   */
  openApi?: boolean;
  /**
   * The directory of the built pages (dist/web): `serve` delivers /dashboard, /portal and their
   * assets from it (docs/pages.md#serving-caching-and-the-session). The CLI's in-process app has no use for them.
   */
  pages?: string;
  /** Where Stripe reconciliation sends the library's requests (docs/stripe-reconciliation.md#the-api-base-url); Stripe when absent. */
  stripeApi?: StripeApi;
  /** How `serve` mails, set once it listens (docs/mail.md#configuration); absent, nothing is mailed. */
  mail?: MailSettings;
};

export const DEFAULT_RATE_LIMIT: RateLimit = { max: 100, windowSeconds: 1 };

export type EdgeSettings = Pick<AppDeps, 'clicks' | 'authFailureLimit' | 'trustProxy'>;

/** The public edge's defaults: unique clicks per hour, 60 clicks a minute and 30 unknown keys a minute per address, no proxy. */
export const DEFAULT_EDGE: EdgeSettings = {
  clicks: { dedupMinutes: 60, rateLimit: { max: 60, windowSeconds: 60 } },
  authFailureLimit: { max: 30, windowSeconds: 60 },
  trustProxy: false,
};
