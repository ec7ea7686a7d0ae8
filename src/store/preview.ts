import type { Sql } from './db.js';

/** One partner's row of a rule preview (docs/groups.md#rule-preview); sums as bigint or numeric text, by engine. */
export type PreviewRow = {
  partner_id: number;
  name: string;
  sales: number;
  revenue_cents: bigint | number | string;
  actual_cents: bigint | number | string;
  preview_cents: bigint | number | string;
};

/**
 * The reward a preview applies to every sale: a percentage in basis points, or a flat amount in
 * cents; and the months of a subscription's renewals that earn it (0: none; null: every renewal).
 */
export type PreviewRule = { type: 'percent' | 'flat'; value: number; recurringMonths: number | null };

/**
 * Below this many cents a sale's percentage is computed in a DOUBLE, exactly: the quotient
 * (r × bp + 5000) / 10000 stays under 2^36, where a DOUBLE's error is far below the 1/10000 that
 * separates it from the next whole cent. Integer division costs DuckDB several times more.
 */
const EXACT_IN_DOUBLE = 50_000_000_000;

/** r × $5 basis points, rounded half up to whole cents. */
const halfUp = (r: string) => `CAST(floor((${r} * $5::BIGINT + 5000) / 10000.0) AS BIGINT)`;

/**
 * The same for larger r, exactly: r = 10000a + b with b in [0, 10000) (a from a DOUBLE quotient,
 * corrected by one either way), so the result is a × bp plus what b earns, which halfUp computes
 * exactly; nothing passes 2^63 for any amount the API accepts.
 */
function halfUpLarge(r: string): string {
  const guess = `CAST(floor(${r} / 10000.0) AS BIGINT)`;
  const a = `(${guess} + CASE WHEN ${r} - ${guess} * 10000 < 0 THEN -1 WHEN ${r} - ${guess} * 10000 >= 10000 THEN 1 ELSE 0 END)`;
  return `(${a} * $5::BIGINT + ${halfUp(`(${r} - ${a} * 10000)`)})`;
}

/**
 * What the program's live sales received in [from, to] earned, per partner, and what they would
 * have earned under `rule`, in one statement and writing nothing (docs/groups.md#rule-preview):
 * each sale earns the rule on what its refunds left of it (a percentage rounded half up in
 * integers; a flat amount unless nothing is left), a renewal only within the rule's months of its
 * subscription's first sale; what they earned is their sale commissions and
 * clawbacks at their current amounts, reversed and rejected ones left out. A sale's commission is
 * created with the sale (its created_at is the sale's received_at), so it is found by its own time
 * without a join; only the few clawbacks are joined to their sales.
 */
export function previewByPartner(sql: Sql, programId: number, from: Date, to: Date, rule: PreviewRule): Promise<PreviewRow[]> {
  // A renewal past its months earns nothing, as at its receipt (renewalEarnsCommission): its subscription's first sale dates it.
  const months = rule.recurringMonths;
  // Only a limit of some months needs each subscription's first sale: none, or 0 (renewals earn nothing), does not.
  const datesRenewals = months !== null && months > 0;
  const firstSales = datesRenewals
    ? `LEFT JOIN (SELECT subscription_id, min(received_at) AS first_sale FROM sale_events WHERE program_id = $1 AND subscription_id IS NOT NULL GROUP BY subscription_id) f
         ON f.subscription_id = e.subscription_id`
    : '';
  const ended = months === null ? '' : months === 0 ? 'WHEN s.is_recurring THEN 0' : "WHEN s.is_recurring AND s.received_at >= s.first_sale + $6::BIGINT * INTERVAL '1 month' THEN 0";
  const earns = `CASE WHEN s.remaining <= 0 THEN 0 ${ended} WHEN $4::VARCHAR = 'flat' THEN $5::BIGINT
    WHEN s.remaining < ${EXACT_IN_DOUBLE} THEN ${halfUp('s.remaining')} ELSE ${halfUpLarge('s.remaining')} END`;
  const counted = "status NOT IN ('reversed', 'rejected')";
  return sql.all<PreviewRow>(
    `WITH r AS (SELECT sale_id, sum(amount_cents) AS refunded FROM refunds WHERE program_id = $1 AND mode = 'live' GROUP BY sale_id),
     s AS (
       SELECT e.partner_program_id, e.amount_cents - coalesce(r.refunded, 0) AS remaining, e.is_recurring, e.received_at,
         ${datesRenewals ? 'f.first_sale' : 'NULL'} AS first_sale
       FROM sale_events e LEFT JOIN r ON r.sale_id = e.id ${firstSales}
       WHERE e.program_id = $1 AND e.received_at >= $2 AND e.received_at <= $3
     ),
     p AS (
       SELECT s.partner_program_id, count(*) AS sales, CAST(sum(s.remaining) AS HUGEINT) AS revenue_cents, CAST(sum(${earns}) AS HUGEINT) AS preview_cents
       FROM s GROUP BY s.partner_program_id
     ),
     a AS (
       SELECT partner_program_id, CAST(sum(amount_cents) AS HUGEINT) AS actual_cents FROM (
         SELECT c.partner_program_id, c.amount_cents FROM commissions c
         WHERE c.program_id = $1 AND c.type = 'sale' AND c.created_at >= $2 AND c.created_at <= $3 AND c.${counted}
         UNION ALL
         SELECT k.partner_program_id, k.amount_cents FROM commissions k JOIN sale_events e ON e.id = k.sale_id
         WHERE k.program_id = $1 AND k.type = 'clawback' AND k.${counted} AND e.received_at >= $2 AND e.received_at <= $3
       ) AS earned GROUP BY partner_program_id
     )
     SELECT pp.partner_id, pa.name, p.sales, p.revenue_cents, coalesce(a.actual_cents, 0) AS actual_cents, p.preview_cents
     FROM p LEFT JOIN a ON a.partner_program_id = p.partner_program_id
     JOIN partner_programs pp ON pp.id = p.partner_program_id JOIN partners pa ON pa.id = pp.partner_id
     ORDER BY p.revenue_cents DESC, pp.partner_id`,
    datesRenewals ? [programId, from, to, rule.type, rule.value, months] : [programId, from, to, rule.type, rule.value],
  );
}
