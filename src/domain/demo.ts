import type { DemoOptions, DemoPhase, DemoProgress, DemoResult } from '../api/index.js';
import { DEMO_TERMS, demoHistory, historyStart } from './demo-history.js';
import type { Deps } from './deps.js';
import * as provisioning from './provisioning.js';
import { randomCode } from './secrets.js';

export const DEMO_MEMBER_EMAIL = 'demo@partnerkit.local';

/** Told the load's phase and the clicks written so far, after each day and at each new phase (docs/api.md#demo-data). */
export type DemoProgressListener = (progress: DemoProgress) => void;

/**
 * `partnerkit demo`: a program with partners, a workspace member and a session, a portal session of
 * its first partner, and a history of clicks, leads, conversions, sales (renewals included) and
 * commissions over the last `days` days, the same for the same seed. Provisioning goes through the
 * domain functions; the history, made by demoHistory, is bulk-loaded in one transaction through
 * DuckDB's appender or PostgreSQL's COPY (the one exception to the HTTP path).
 */
/**
 * Where the demo's partner links send visitors (docs/api.md#demo-data): a page that
 * exists on any network (example.com, reserved for documentation), so a link followed from the
 * demo redirects there instead of answering 404.
 */
export const DEMO_LANDING_URL = 'https://example.com/';

export async function loadDemo(deps: Deps, options: DemoOptions, progress: DemoProgressListener = () => {}): Promise<DemoResult> {
  const now = deps.clock.now().getTime();
  const firstDay = historyStart(now, options.days);
  // The program exists from the start of the history, so `--period all` shows all of it.
  const atStart = { store: deps.store, clock: { now: () => new Date(firstDay) } };
  const program = await provisioning.createProgram(atStart, {
    name: `Demo program (seed ${options.seed})`,
    commission: DEMO_TERMS.commission,
    attributionWindowDays: 90,
    holdDays: DEMO_TERMS.holdDays,
    recurringMonths: null,
    approval: 'auto',
    minPayoutCents: 0,
    landingUrl: DEMO_LANDING_URL,
    applicationsOpen: true,
    autoApprove: false,
  });
  await provisioning.setMembership(deps, program.id, DEMO_MEMBER_EMAIL, 'active');
  const session = await provisioning.createSession(deps, DEMO_MEMBER_EMAIL, 24);

  const store = deps.store;
  let firstPartnerId: number | undefined;
  const counts = await store.bulkLoad(program.id, async (load) => {
    const history = demoHistory(options, { programId: program.id, firstDay, now }, { refCode: randomCode });
    const report = (phase: DemoPhase, done: number) => progress({ phase, done, total: options.clicks });
    let written = 0;
    let step = history.next();
    while (!step.done) {
      const part = step.value;
      if ('reserve' in part) {
        step = history.next(await load.reserve(part.reserve, part.count));
        continue;
      }
      await load.append(part);
      if (part.table === 'partners') firstPartnerId = part.columns.id[0] as number;
      if (part.table === 'clicks' && part.rowCount > 0) {
        written += part.rowCount;
        // After the last day's clicks the generator works out the leads and sales before yielding them.
        report(written === options.clicks ? 'sales' : 'clicks', written);
        // Between days, let timers (a progress bar), a streamed answer and, in a server, other requests run.
        await new Promise((resolve) => setImmediate(resolve));
      }
      step = history.next();
    }
    // The load commits when this returns: seconds for millions of rows.
    report('commit', written);
    return step.value;
  });

  // After the commit: the partner exists only once the history is written.
  const partnerSession = await provisioning.createPartnerSession(deps, firstPartnerId!, 24);

  return {
    programId: program.id,
    name: program.name,
    apiKey: program.apiKey,
    testApiKey: program.testApiKey,
    memberEmail: DEMO_MEMBER_EMAIL,
    sessionToken: session.token,
    sessionExpiresAt: session.expiresAt,
    partnerId: partnerSession.partnerId,
    partnerSessionToken: partnerSession.token,
    partnerSessionExpiresAt: partnerSession.expiresAt,
    signInCode: session.signInCode,
    partnerSignInCode: partnerSession.signInCode,
    signInCodesExpireAt: session.signInCodeExpiresAt, // the earlier of the two: made before the load
    from: new Date(firstDay).toISOString(),
    to: new Date(now).toISOString(),
    counts,
  };
}
