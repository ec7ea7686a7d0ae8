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

/** The reward a preview applies to every sale: a percentage in basis points, or a flat amount in cents. */
export type PreviewRule = { type: 'percent' | 'flat'; value: number };

/**
 * What the program's live sales received in [from, to] earned, per partner, and what they would
 * have earned under `rule`, in one statement and writing nothing (docs/groups.md#rule-preview):
 * each sale earns the rule on what its refunds left of it (a percentage rounded half up in
 * integers; a flat amount unless nothing is left); what they earned is their sale commissions and
 * clawbacks at their current amounts, reversed and rejected ones left out.
 */
export function previewByPartner(sql: Sql, programId: number, from: Date, to: Date, rule: PreviewRule): Promise<PreviewRow[]> {
  // (x - x % 10000) / 10000 divides exactly on both engines (DuckDB's `/` answers a DOUBLE).
  const earns = `CASE WHEN s.remaining <= 0 THEN 0 WHEN $4::VARCHAR = 'flat' THEN $5::BIGINT
    ELSE CAST((s.remaining * $5::BIGINT + 5000 - (s.remaining * $5::BIGINT + 5000) % 10000) / 10000 AS BIGINT) END`;
  return sql.all<PreviewRow>(
    `WITH r AS (SELECT sale_id, sum(amount_cents) AS refunded FROM refunds WHERE program_id = $1 AND mode = 'live' GROUP BY sale_id),
     s AS (
       SELECT e.id, e.partner_program_id, e.amount_cents - coalesce(r.refunded, 0) AS remaining
       FROM sale_events e LEFT JOIN r ON r.sale_id = e.id
       WHERE e.program_id = $1 AND e.received_at >= $2 AND e.received_at <= $3
     ),
     p AS (
       SELECT s.partner_program_id, count(*) AS sales, CAST(sum(s.remaining) AS HUGEINT) AS revenue_cents, CAST(sum(${earns}) AS HUGEINT) AS preview_cents
       FROM s GROUP BY s.partner_program_id
     ),
     a AS (
       SELECT c.partner_program_id, CAST(sum(c.amount_cents) AS HUGEINT) AS actual_cents FROM commissions c
       WHERE c.program_id = $1 AND c.type <> 'lead' AND c.status NOT IN ('reversed', 'rejected') AND c.sale_id IN (SELECT id FROM s)
       GROUP BY c.partner_program_id
     )
     SELECT pp.partner_id, pa.name, p.sales, p.revenue_cents, coalesce(a.actual_cents, 0) AS actual_cents, p.preview_cents
     FROM p LEFT JOIN a ON a.partner_program_id = p.partner_program_id
     JOIN partner_programs pp ON pp.id = p.partner_program_id JOIN partners pa ON pa.id = pp.partner_id
     ORDER BY p.revenue_cents DESC, pp.partner_id`,
    [programId, from, to, rule.type, rule.value],
  );
}
