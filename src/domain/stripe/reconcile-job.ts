import { randomUUID } from 'node:crypto';
import { programsWithStripeKey } from '../../store/programs.js';
import { findSetting, insertSetting, updateSetting } from '../../store/settings.js';
import type { Deps } from '../deps.js';
import { reconcileStripe, type StripeApi } from './reconcile.js';

/** The row of settings naming the instance whose turn it is, and until when: `<owner> <until, ms>`. */
const LEASE = 'stripe_reconcile_lease';

/**
 * `serve --stripe-reconcile-every`: every interval, every program with a Stripe API key is
 * reconciled (docs/stripe-reconciliation.md#every-few-minutes). Instances sharing a PostgreSQL
 * database take turns: a run first takes the lease for one interval in a serializable
 * transaction, which one instance wins; the others skip that round. A program's failure is
 * reported and the next program reconciled.
 */
export class ReconcileJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly owner = randomUUID();

  constructor(
    private readonly deps: Deps & { stripeApi: StripeApi },
    private readonly everyMs: number,
    private readonly report: (line: string) => void,
  ) {}

  start(): this {
    this.schedule();
    return this;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.runOnce().finally(() => this.schedule());
    }, this.everyMs);
    this.timer.unref();
  }

  /** One round, when this instance holds the lease: every program with a key, one after another. */
  async runOnce(): Promise<void> {
    if (!(await this.takeTurn())) return;
    const programIds = await this.deps.store.read(programsWithStripeKey);
    for (const programId of programIds) {
      if (this.stopped) return;
      try {
        const r = await reconcileStripe(this.deps, programId, {});
        this.report(`stripe reconcile: program ${programId}: ${r.checked} checked, ${r.recordedNow.length} recorded now, ${r.skipped.length} skipped, ${r.failed.length} failed`);
      } catch (error) {
        this.report(`stripe reconcile: program ${programId}: ${(error as Error).message}`);
      }
    }
  }

  /** Whether this instance may run this round: the lease is free, expired, or its own, and is now its own for an interval. */
  private takeTurn(): Promise<boolean> {
    const now = this.deps.clock.now().getTime();
    return this.deps.store.transaction(async (sql) => {
      const current = await findSetting(sql, LEASE);
      const [owner, until] = current?.split(' ') ?? [];
      if (current !== undefined && owner !== this.owner && Number(until) > now) return false;
      // A little less than an interval, so the holder's next round finds it expired by its own clock.
      const value = `${this.owner} ${now + this.everyMs - 1000}`;
      if (current === undefined) await insertSetting(sql, LEASE, value);
      else await updateSetting(sql, LEASE, value);
      return true;
    });
  }
}
