import { list, type Sql } from './db.js';

export type CommissionRule = { type: 'percent' | 'flat'; value: number };

/** How pending commissions become approved (docs/refunds-and-payouts.md#the-status-a-commission-reads-as). */
export type Approval = 'auto' | 'manual';

export type ProgramRow = {
  id: number;
  name: string;
  commission_type: 'percent' | 'flat';
  commission_value: number;
  attribution_window_days: number;
  hold_days: number;
  recurring_months: number | null;
  webhook_secret: string;
  created_at: Date;
  approval: Approval;
  min_payout_cents: number;
  /** Where partner links send visitors; null until set (docs/tracking.md#landing-url). */
  landing_url: string | null;
  /** The fraud rules' modes as JSON, rules left out at their defaults; null: every default (docs/fraud.md#the-rules). */
  fraud_rules: string | null;
  /** The restricted Stripe API key reconciliation reads events with; never shown again (docs/stripe-reconciliation.md#the-restricted-key). */
  stripe_api_key: string | null;
  /** Whether the public application page takes applications (docs/applications.md#program-settings). */
  applications_open: boolean;
  /** Whether an application is approved as it arrives. */
  auto_approve: boolean;
};

/** What `program update` can change: every setting of `program create`. */
export type ProgramSettings = Pick<
  ProgramRow,
  'name' | 'commission_type' | 'commission_value' | 'attribution_window_days' | 'hold_days' | 'recurring_months' | 'approval' | 'min_payout_cents'
  | 'landing_url' | 'fraud_rules' | 'stripe_api_key' | 'applications_open' | 'auto_approve'
>;

export type ProductRuleRow = {
  program_id: number;
  product_id: string;
  commission_type: 'percent' | 'flat';
  commission_value: number;
  created_at: Date;
};

export async function insertProgram(sql: Sql, p: ProgramRow): Promise<void> {
  await sql.run(
    `INSERT INTO programs (id, name, commission_type, commission_value, attribution_window_days, hold_days,
       recurring_months, webhook_secret, created_at, approval, min_payout_cents, landing_url, fraud_rules, stripe_api_key, applications_open, auto_approve)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
    [p.id, p.name, p.commission_type, p.commission_value, p.attribution_window_days, p.hold_days,
      p.recurring_months, p.webhook_secret, p.created_at, p.approval, p.min_payout_cents, p.landing_url, p.fraud_rules, p.stripe_api_key, p.applications_open, p.auto_approve],
  );
}

export async function updateProgram(sql: Sql, id: number, s: ProgramSettings): Promise<void> {
  await sql.run(
    `UPDATE programs SET name = $2, commission_type = $3, commission_value = $4, attribution_window_days = $5, hold_days = $6,
       recurring_months = $7, approval = $8, min_payout_cents = $9, landing_url = $10, fraud_rules = $11, stripe_api_key = $12,
       applications_open = $13, auto_approve = $14 WHERE id = $1`,
    [id, s.name, s.commission_type, s.commission_value, s.attribution_window_days, s.hold_days, s.recurring_months, s.approval, s.min_payout_cents,
      s.landing_url, s.fraud_rules, s.stripe_api_key, s.applications_open, s.auto_approve],
  );
}


export function findProgram(sql: Sql, id: number): Promise<ProgramRow | undefined> {
  return sql.one<ProgramRow>('SELECT * FROM programs WHERE id = $1', [id]);
}

export function allPrograms(sql: Sql): Promise<ProgramRow[]> {
  return sql.all<ProgramRow>('SELECT * FROM programs ORDER BY id');
}

export async function upsertProductRule(sql: Sql, rule: ProductRuleRow): Promise<void> {
  await sql.run(
    `INSERT INTO product_rules (program_id, product_id, commission_type, commission_value, created_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (program_id, product_id) DO UPDATE SET
       commission_type = excluded.commission_type, commission_value = excluded.commission_value`,
    [rule.program_id, rule.product_id, rule.commission_type, rule.commission_value, rule.created_at],
  );
}

export function listProductRules(sql: Sql, programId: number): Promise<ProductRuleRow[]> {
  return sql.all<ProductRuleRow>('SELECT * FROM product_rules WHERE program_id = $1 ORDER BY product_id', [programId]);
}

/** The programs with a Stripe API key, by id: the ones the periodic reconciliation reads. */
export async function programsWithStripeKey(sql: Sql): Promise<number[]> {
  return (await sql.all<{ id: number }>('SELECT id FROM programs WHERE stripe_api_key IS NOT NULL ORDER BY id')).map((r) => r.id);
}

export function findPrograms(sql: Sql, ids: number[]): Promise<ProgramRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return sql.all<ProgramRow>('SELECT * FROM programs WHERE id = ANY($1::BIGINT[])', [list(ids)]);
}

