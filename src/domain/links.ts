import { clickUrl, partnerLinkPath, type PartnerLinks } from '../api/index.js';
import { AppError } from '../errors.js';
import { findEnrollment } from '../store/partners.js';
import type { Deps } from './deps.js';
import { cachedEnrollments } from './enrollment-cache.js';
import { cachedProgram, cachedPrograms } from './program-cache.js';
import { trackClick } from './tracking.js';
import { trackingScript, type TrackingScript } from '../web/tracking-script.js';
import type { ClickDeps } from './unique-clicks.js';

/** The query parameter that carries the click id to the landing page, and the cookie's name there. */
const CLICK_ID_PARAM = 'partner_click_id';

/**
 * Where a partner link sends its visitor (docs/tracking.md#partner-links-get-rrefcode): `to`, a path or URL read
 * relative to the landing URL, when it lands on the landing URL's origin; else the landing URL.
 * The answer is what the URL parser made of it, never the text as sent, so what was checked is
 * what the visitor is sent to: `//evil.example`, `/\evil.example`, `https://evil.example` and their
 * encodings all resolve to another origin and are ignored.
 */
export function linkTarget(landingUrl: string, to: string | undefined): URL {
  const landing = new URL(landingUrl);
  if (to === undefined) return landing;
  let target: URL;
  try {
    target = new URL(to, landing);
  } catch {
    return landing;
  }
  return target.origin === landing.origin && target.username === '' && target.password === '' ? target : landing;
}

/** A visit of a partner link: who follows it, from where, and whether a click may be recorded. */
export type LinkVisit = {
  refCode: string;
  to: string | undefined;
  ip: string;
  userAgent: string | undefined;
  referrer: string | undefined;
  /** False over the client address's click limit, and for HEAD requests: the visitor is sent on without a click. */
  recordClick: boolean;
};

export type LinkOutcome =
  /** The landing page, with the click id when one was recorded (or repeated). */
  | { kind: 'redirect'; location: string }
  | { kind: 'unknown_ref' }
  | { kind: 'no_landing_url' };

const MAX_URL_FIELD = 2048;

/**
 * The `Referer` a click keeps: cut to the field's length, and kept only when it is then an http(s)
 * URL as the click endpoint requires. It is a browser's header, so anything else is dropped rather
 * than refused (docs/tracking.md#partner-links-get-rrefcode).
 */
function webReferrer(referer: string | undefined): string | undefined {
  const parsed = clickUrl.safeParse(referer?.slice(0, MAX_URL_FIELD));
  return parsed.success ? parsed.data : undefined;
}

/**
 * GET /r/:refCode: the active enrollment of the code and its program's landing URL (both cached),
 * then a click recorded exactly as the click endpoint records a browser's (the same batch, unique
 * clicks and visitor), its id added to the landing URL's query.
 */
export async function followPartnerLink(deps: ClickDeps, visit: LinkVisit): Promise<LinkOutcome> {
  const { store } = deps;
  const program = await store.read(async (sql) => {
    const enrollment = (await cachedEnrollments(store, sql, [visit.refCode])).get(visit.refCode);
    if (enrollment?.status !== 'active') return undefined;
    return (await cachedPrograms(store, sql, [enrollment.program_id])).get(enrollment.program_id)?.program;
  });
  if (!program) return { kind: 'unknown_ref' };
  if (program.landing_url === null) return { kind: 'no_landing_url' };
  const target = linkTarget(program.landing_url, visit.to);
  // The click id is the server's to give: one a `to` carried is dropped, even without a new click.
  if (target.searchParams.has(CLICK_ID_PARAM)) target.searchParams.delete(CLICK_ID_PARAM);
  if (!visit.recordClick) return { kind: 'redirect', location: target.href };
  const outcome = await trackClick(
    deps,
    { apiKey: null, ip: visit.ip, userAgent: visit.userAgent },
    { ref: visit.refCode, landing_url: target.href.slice(0, MAX_URL_FIELD), referrer: webReferrer(visit.referrer) },
  );
  if (outcome.kind !== 'recorded' && outcome.kind !== 'repeated') return { kind: 'unknown_ref' };
  target.searchParams.set(CLICK_ID_PARAM, outcome.clickId);
  return { kind: 'redirect', location: target.href };
}

/** The landing URL with `via=<refCode>` added to its query, for pages that load the tracking script; null without one. */
export function viaUrl(landingUrl: string | null, refCode: string): string | null {
  if (landingUrl === null) return null;
  const via = new URL(landingUrl);
  via.searchParams.set('via', refCode);
  return via.href;
}

/** GET /api/admin/programs/:programId/partners/:partnerId: the partner's referral code and links in the program. */
export async function partnerLinks({ store }: Deps, programId: number, partnerId: number): Promise<PartnerLinks> {
  return store.read(async (sql) => {
    const { program } = await cachedProgram(store, sql, programId);
    const enrollment = await findEnrollment(sql, programId, partnerId);
    if (!enrollment) throw new AppError('not_found', `Partner ${partnerId} is not enrolled in program ${programId}`);
    return {
      programId,
      partnerId,
      refCode: enrollment.ref_code,
      status: enrollment.status,
      linkPath: partnerLinkPath(enrollment.ref_code),
      landingUrl: program.landing_url,
      viaUrl: viaUrl(program.landing_url, enrollment.ref_code),
    };
  });
}

/** GET /pk.js?program=ID: the tracking script with the program's attribution window as the cookie's lifetime (404 for an unknown program). */
export async function programTrackingScript({ store }: Deps, programId: number): Promise<TrackingScript> {
  const { program } = await store.read((sql) => cachedProgram(store, sql, programId));
  return trackingScript(program.attribution_window_days);
}
