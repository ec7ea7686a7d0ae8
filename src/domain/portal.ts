import { partnerLinkPath, type CommissionStatus, type PerformanceQuery, type PortalCommissions, type PortalMe, type PortalPayouts, type PortalPerformance } from '../api/index.js';
import { listCommissions, type PageRange } from '../store/commissions.js';
import type { Sql } from '../store/db.js';
import * as partners from '../store/partners.js';
import type { PartnerProgramRow } from '../store/partners.js';
import { programPayouts } from '../store/payouts.js';
import { partnerDays, type PartnerMetrics } from '../store/reports.js';
import type { Deps } from './deps.js';
import { viaUrl } from './links.js';
import { dollars, partnerMetrics, programReport } from './performance.js';
import { cachedProgram, programNotFound } from './program-cache.js';

/*
 * The partner portal's reads (docs/pages.md#session-apis). Every one is scoped by the session's
 * partner: a program it is not enrolled in answers exactly like a program that does not exist, and
 * nothing a partner reads names a customer.
 */

/** The partner's enrollment in the program, or 404 as for an unknown program. */
async function enrollment(sql: Sql, partnerId: number, programId: number): Promise<PartnerProgramRow> {
  const found = await partners.findEnrollment(sql, programId, partnerId);
  if (!found) throw programNotFound(programId);
  return found;
}

/** GET /api/portal/me: the partner and its enrollments with their links; `origin` is the address the request reached. */
export async function portalMe({ store }: Deps, partnerId: number, origin: string): Promise<PortalMe> {
  return store.read(async (sql) => {
    // Partners are never deleted: a session's partner exists.
    const partner = (await partners.findPartner(sql, partnerId))!;
    const enrollments = await partners.partnerEnrollments(sql, partnerId);
    return {
      partner: { id: partner.id, name: partner.name, email: partner.email },
      programs: enrollments.map((e) => ({
        programId: e.program_id,
        name: e.program_name,
        refCode: e.ref_code,
        status: e.status,
        link: `${origin}${partnerLinkPath(e.ref_code)}`,
        viaLink: viaUrl(e.landing_url, e.ref_code),
      })),
    };
  });
}

const COUNTS = ['clicks', 'leadStatus', 'conversions', 'sales'] as const;

/** The days' sums added up: the window's totals. */
function total(days: PartnerMetrics[]): PartnerMetrics {
  const sum: PartnerMetrics = { clicks: 0, leadStatus: 0, conversions: 0, sales: 0, revenueCents: 0n, commissionCents: 0n };
  for (const day of days) {
    for (const m of COUNTS) sum[m] += day[m];
    sum.revenueCents += day.revenueCents;
    sum.commissionCents += day.commissionCents;
  }
  return sum;
}

/**
 * GET /api/portal/programs/:programId/performance: the program report's query and windows (400
 * first), the partner's enrollment (404), then its days, which are the per-partner report's sums
 * split by day, so the totals equal the partner's row of that report.
 */
export function portalPerformance(deps: Deps, partnerId: number, programId: number, query: PerformanceQuery): Promise<PortalPerformance> {
  let enrolled: PartnerProgramRow;
  const program = async (sql: Sql) => {
    enrolled = await enrollment(sql, partnerId, programId);
    return (await cachedProgram(deps.store, sql, programId)).program;
  };
  return programReport(deps, query, program, async (sql, window) => {
    const days = await partnerDays(sql, programId, enrolled.id, window);
    const currencies = await partners.enrollmentCurrencies(sql, programId, enrolled.id, 2);
    return {
      data: {
        totals: partnerMetrics(total(days)),
        daily: days.map(({ day, ...sums }) => ({ date: day, ...partnerMetrics(sums) })),
      },
      meta: {
        programId,
        partnerId,
        from: window.from.toISOString(),
        to: window.to.toISOString(),
        period: window.period,
        ...(currencies.length === 1 ? { currency: currencies[0] } : {}),
      },
    };
  });
}

/**
 * GET /api/portal/programs/:programId/commissions: the partner's commissions as of now, newest first,
 * without the merchant's notes, a page of them (docs/pages.md#session-apis) and the number matching.
 */
export async function portalCommissions(
  { store, clock }: Deps,
  partnerId: number,
  programId: number,
  status: CommissionStatus | undefined,
  page: PageRange,
): Promise<PortalCommissions & { total: number }> {
  return store.read(async (sql) => {
    await enrollment(sql, partnerId, programId);
    const { rows, total } = await listCommissions(sql, programId, clock.now(), { status, partnerId }, { ...page, newestFirst: true });
    return {
      total,
      data: rows.map((c) => ({
        id: c.id,
        saleId: c.sale_id,
        type: c.type,
        amount: dollars(BigInt(c.amount_cents)),
        currency: c.currency,
        status: c.status,
        createdAt: c.created_at.toISOString(),
        holdUntil: c.hold_until.toISOString(),
        paidAt: c.paid_at?.toISOString() ?? null,
        payoutId: c.payout_id,
      })),
    };
  });
}

/** GET /api/portal/programs/:programId/payouts: the partner's payouts, by id. */
export async function portalPayouts({ store }: Deps, partnerId: number, programId: number): Promise<PortalPayouts> {
  return store.read(async (sql) => {
    await enrollment(sql, partnerId, programId);
    const rows = await programPayouts(sql, programId, { partnerId });
    return {
      data: rows.map((p) => ({
        id: p.id,
        batchId: p.batch_id,
        currency: p.currency,
        amount: dollars(p.amount_cents),
        status: p.status,
        createdAt: p.created_at.toISOString(),
        paidAt: p.paid_at?.toISOString() ?? null,
        commissionCount: p.commission_ids.length,
      })),
    };
  });
}
