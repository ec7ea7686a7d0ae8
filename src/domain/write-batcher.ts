import type { Sql, TransactionOptions } from '../store/db.js';
import type { Deps } from './deps.js';
import { perStore } from './store-cache.js';

/**
 * How a batch is being run: `afterFailure` when an earlier run of these items failed and was rolled
 * back. `afterCommit` registers what to do once this run's transaction has committed (memory that
 * must never get ahead of the store); a run that is rolled back never does it.
 */
export type BatchRun = { afterFailure: boolean; afterCommit(effect: () => void): void };

/**
 * Decides and writes a batch of items inside one transaction, answering one outcome per item, in
 * order. Refusals are outcomes; a throw means the batch could not be written (a SQL error, a unique
 * key violated) and its transaction is rolled back. A record function may leave a rare conflict to
 * a unique key on a first run and must look everything up when `afterFailure` is set.
 */
export type RecordBatch<I, R, D extends Deps = Deps> = (deps: D, sql: Sql, items: I[], run: BatchRun) => Promise<R[]>;

type Waiting<I, R> = { item: I; resolve(outcome: R): void; reject(error: unknown): void };

/** Most items in one transaction: a bound on a batch's statement sizes and on the wait of its first caller. */
const MAX_BATCH = 256;

/**
 * The write path of every tracked event (docs/architecture.md#the-write-path). Items that arrive
 * while the writer is busy wait here and are recorded together: a fixed number of statements per
 * batch instead of per item, in one transaction, each caller answered after its COMMIT. The one
 * retry policy: a batch that fails runs once more with every check (afterFailure), then one item at
 * a time, so an item that cannot be written fails alone and its neighbours are recorded.
 */
export class WriteBatcher<I, R, D extends Deps = Deps> {
  private pending: Array<Waiting<I, R>> = [];
  private flushing = false;

  constructor(
    private readonly record: RecordBatch<I, R, D>,
    private readonly options: TransactionOptions = {},
  ) {}

  /** `deps` are those of the batcher's store (one batcher per store). */
  submit(deps: D, item: I): Promise<R> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.flushing) void this.flush(deps);
    });
  }

  private async flush(deps: D): Promise<void> {
    this.flushing = true;
    try {
      while (this.pending.length > 0) await this.recordNextBatch(deps);
    } finally {
      this.flushing = false;
    }
  }

  /**
   * The batch is taken when its transaction starts, not when it is queued: what arrives while other
   * writes run joins it. A transaction that never started (the store closed) fails everything waiting.
   */
  private async recordNextBatch(deps: D): Promise<void> {
    let batch: Array<Waiting<I, R>> | undefined;
    const run = (afterFailure: boolean) =>
      this.attempt(deps, afterFailure, () => {
        batch ??= this.pending.splice(0, MAX_BATCH);
        return batch.map((w) => w.item);
      });
    try {
      const outcomes = await run(false).catch((error: unknown) => (batch ? run(true) : Promise.reject(error)));
      settle(batch!, outcomes);
    } catch (error) {
      if (!batch) {
        for (const waiting of this.pending.splice(0)) waiting.reject(error);
        return;
      }
      if (batch.length === 1) return batch[0].reject(error);
      for (const waiting of batch) {
        await this.attempt(deps, true, () => [waiting.item]).then((alone) => settle([waiting], alone), waiting.reject);
      }
    }
  }

  /** One transaction recording the items `take` gives when it starts; its afterCommit effects run once it committed. */
  private async attempt(deps: D, afterFailure: boolean, take: () => I[]): Promise<R[]> {
    let effects: Array<() => void> = [];
    const outcomes = await deps.store.transaction((sql) => {
      effects = []; // a transaction run again (docs/store-engines.md#one-interface-two-engines) keeps only its last run's effects
      return this.record(deps, sql, take(), { afterFailure, afterCommit: (effect) => effects.push(effect) });
    }, { ...this.options, moreToCome: () => this.pending.length > 0 });
    for (const effect of effects) effect();
    return outcomes;
  }
}

function settle<I, R>(batch: Array<Waiting<I, R>>, outcomes: R[]): void {
  batch.forEach((waiting, i) => waiting.resolve(outcomes[i]));
}

/** Submits items to one batcher per store (tests open many stores in one process). */
export function batched<I, R, D extends Deps = Deps>(record: RecordBatch<I, R, D>, options?: TransactionOptions): (deps: D, item: I) => Promise<R> {
  const batcherOf = perStore(() => new WriteBatcher(record, options));
  return (deps, item) => batcherOf(deps.store).submit(deps, item);
}
