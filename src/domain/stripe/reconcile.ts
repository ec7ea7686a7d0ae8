import { utc } from '@date-fns/utc';
import { subDays } from 'date-fns/subDays';
import type Stripe from 'stripe';
import type { ReconcileReport } from '../../api/index.js';
import { AppError, invalidRequest } from '../../errors.js';
import { programKey } from '../../store/program-key.js';
import * as webhooks from '../../store/webhooks.js';
import type { Deps } from '../deps.js';
import { cachedProgram } from '../program-cache.js';
import { escapeLoneSurrogates } from '../unicode.js';
import { HANDLED_EVENT_TYPES } from './plan.js';
import { applyEvent } from './receive.js';
import { reattribute } from './rerun.js';
import { parseEnvelope } from './schema.js';

/*
 * Stripe reconciliation (docs/stripe-reconciliation.md): the program's events of the types partnerkit
 * handles, read from Stripe's API with the official library and the program's restricted key, and
 * each one not stored yet sent through the webhook pipeline as a delivery would be: stored once per
 * event id, so a rerun, or two instances at once, record nothing twice.
 */

/** How long Stripe keeps events. */
export const STRIPE_EVENT_DAYS = 30;
/** Retries of a request Stripe answered 429 (asking for a retry), 409 or 5xx, or that failed to connect; with the library's backoff. */
const MAX_NETWORK_RETRIES = 3;
/** Events decided at once: the writer batches them (docs/architecture.md#the-write-path). */
const PAGE = 100;

/** Where the library sends its requests: Stripe, or the base URL of PARTNERKIT_STRIPE_API_BASE (a local server in tests). */
export type StripeApi = { base?: string };

/** The library, loaded on the first reconciliation: no other route or command needs it. */
type StripeLibrary = typeof Stripe;

function stripeClient(StripeClass: StripeLibrary, key: string, api: StripeApi): Stripe {
  const base = api.base === undefined ? undefined : new URL(api.base);
  return new StripeClass(key, {
    maxNetworkRetries: MAX_NETWORK_RETRIES,
    timeout: 30_000,
    telemetry: false,
    ...(base && { host: base.hostname, port: base.port || (base.protocol === 'http:' ? 80 : 443), protocol: base.protocol === 'http:' ? 'http' : 'https' }),
  });
}

/** A failure of Stripe's API as partnerkit says it: the program named, never the key (nor Stripe's message, which may quote part of it). */
function stripeFailure(errors: StripeLibrary['errors'], programId: number, error: unknown): unknown {
  if (!(error instanceof errors.StripeError)) return error;
  if (error instanceof errors.StripeAuthenticationError || error instanceof errors.StripePermissionError) {
    return new AppError(
      'upstream_error',
      `Stripe refused the API key of program ${programId} (${error.statusCode ?? 401}); set a restricted key that can read events with: partnerkit program update --program ${programId} --stripe-api-key rk_…`,
      { programId, stripeStatus: error.statusCode ?? null },
    );
  }
  const status = error.statusCode === undefined ? 'no answer' : `status ${error.statusCode}`;
  return new AppError('upstream_error', `Stripe's API failed for program ${programId} (${status}, ${error.type}) after ${MAX_NETWORK_RETRIES} retries; try again later`, {
    programId,
    stripeStatus: error.statusCode ?? null,
  });
}

export type ReconcileOptions = { since?: Date; dryRun?: boolean };

/**
 * POST /api/programs/:programId/stripe/reconcile: pages through the program's events since `since`
 * (default: the 30 days Stripe keeps), oldest page last as Stripe lists them, and records each one
 * not stored yet; a dry run only counts them. An older `since` is 400; no key is 409.
 */
export async function reconcileStripe(deps: Deps & { stripeApi: StripeApi }, programId: number, options: ReconcileOptions): Promise<ReconcileReport> {
  const { store, clock } = deps;
  const { program } = await store.read((sql) => cachedProgram(store, sql, programId));
  if (program.stripe_api_key === null) {
    throw new AppError('conflict', `Program ${programId} has no Stripe API key; set one with: partnerkit program update --program ${programId} --stripe-api-key rk_…`);
  }
  const oldest = subDays(clock.now(), STRIPE_EVENT_DAYS, { in: utc });
  const since = options.since ?? oldest;
  if (since < oldest) {
    throw invalidRequest([{ field: 'since', message: `Stripe keeps events for ${STRIPE_EVENT_DAYS} days: since must be ${oldest.toISOString()} or later` }]);
  }
  const report: ReconcileReport = {
    programId, since: since.toISOString(), dryRun: options.dryRun === true, checked: 0,
    alreadyRecorded: [], recordedNow: [], skipped: [], failed: [],
  };
  const { default: StripeClass } = await import('stripe');
  const events = stripeClient(StripeClass, program.stripe_api_key, deps.stripeApi).events.list({
    types: [...HANDLED_EVENT_TYPES], created: { gte: Math.floor(since.getTime() / 1000) }, limit: PAGE,
  });
  const page: Stripe.Event[] = [];
  try {
    for await (const event of events) {
      page.push(event);
      if (page.length === PAGE) await reconcilePage(deps, programId, page.splice(0), report);
    }
  } catch (error) {
    throw stripeFailure(StripeClass.errors, programId, error);
  }
  await reconcilePage(deps, programId, page, report);
  return report;
}

/** One page: the events already stored are counted, the others recorded together (or, in a dry run, only counted). */
async function reconcilePage(deps: Deps, programId: number, page: Stripe.Event[], report: ReconcileReport): Promise<void> {
  if (page.length === 0) return;
  report.checked += page.length;
  const keyOf = (event: Stripe.Event) => programKey(programId, escapeLoneSurrogates(event.id));
  const stored = await deps.store.read((sql) => webhooks.findWebhookEvents(sql, page.map(keyOf)));
  const missing = page.filter((event) => !stored.has(keyOf(event)));
  report.alreadyRecorded.push(...page.filter((event) => stored.has(keyOf(event))).map((event) => event.id));
  if (report.dryRun) {
    report.recordedNow.push(...missing.map((event) => event.id));
    return;
  }
  const unlocks = await Promise.all(
    missing.map(async (event) => {
      try {
        const { result, unlocks } = await applyEvent(deps, programId, parseEnvelope(event), JSON.stringify(event));
        if (result.redelivery) report.alreadyRecorded.push(event.id); // another instance stored it meanwhile
        else if (result.outcome === 'recorded') report.recordedNow.push(event.id);
        else report.skipped.push({ eventId: event.id, outcome: result.outcome, reason: result.reason });
        return unlocks;
      } catch (error) {
        report.failed.push({ eventId: event.id, error: error instanceof AppError ? error.message : 'internal error' });
        return undefined;
      }
    }),
  );
  await reattribute(deps, programId, unlocks);
}
