import type { AppError } from '../errors.js';
import type { Sql } from '../store/db.js';
import type { Deps } from './deps.js';
import { perStore } from './store-cache.js';

/** One item's answer: a value, or the domain error it is refused with. */
export type Outcome<R> = { ok: true; value: R } | { ok: false; error: AppError };

/**
 * Records a batch inside the writer's transaction, deciding each item before its first write.
 * `afterFailure` is true when an earlier run of these items failed: a batch may let a unique key
 * catch the rare conflict on its first run and must look everything up on a later one.
 */
export type RecordBatch<I, R> = (deps: Deps, sql: Sql, items: I[], run: { afterFailure: boolean }) => Promise<Array<Outcome<R>>>;

type Waiting<I, R> = { item: I; resolve(value: R): void; reject(error: unknown): void };

/**
 * Gathers the items that arrive while the writer is busy and records them as one batch: a fixed
 * number of statements per batch instead of per item, in one transaction, each caller answered
 * after its COMMIT. A batch that fails at the SQL level runs once more with every check, then one
 * item at a time, so a bad item fails alone.
 */
class WriteBatcher<I, R> {
  private pending: Array<Waiting<I, R>> = [];
  private scheduled = false;

  constructor(private readonly record: RecordBatch<I, R>) {}

  /** `deps` are those of the batcher's store (one batcher per store). */
  submit(deps: Deps, item: I): Promise<R> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        void this.flush(deps);
      }
    });
  }

  private async flush(deps: Deps): Promise<void> {
    let batch: Array<Waiting<I, R>> | undefined;
    let runs = 0;
    // The store may run this job again after a rollback: the batch is taken once.
    const record = () =>
      deps.store.write((sql) => {
        if (!batch) {
          batch = this.pending;
          this.pending = [];
          this.scheduled = false;
        }
        return this.record(deps, sql, batch.map((w) => w.item), { afterFailure: runs++ > 0 });
      });
    let outcomes: Array<Outcome<R>>;
    try {
      // A job the store ran alone is not re-run by it: run it once more, with every check.
      outcomes = await record().catch((error: unknown) => (batch && runs === 1 ? record() : Promise.reject(error)));
    } catch (error) {
      if (!batch) {
        // The job never ran (store closed): fail everything waiting.
        const waiting = this.pending;
        this.pending = [];
        this.scheduled = false;
        for (const w of waiting) w.reject(error);
        return;
      }
      if (batch.length === 1) return batch[0].reject(error);
      for (const w of batch) {
        await deps.store
          .write((sql) => this.record(deps, sql, [w.item], { afterFailure: true }))
          .then((alone) => settle([w], alone), w.reject);
      }
      return;
    }
    settle(batch!, outcomes);
  }
}

function settle<I, R>(batch: Array<Waiting<I, R>>, outcomes: Array<Outcome<R>>): void {
  batch.forEach((w, i) => {
    const outcome = outcomes[i];
    if (outcome.ok) w.resolve(outcome.value);
    else w.reject(outcome.error);
  });
}

/** Submits items to one batcher per store (tests open many stores in one process). */
export function batched<I, R>(record: RecordBatch<I, R>): (deps: Deps, item: I) => Promise<R> {
  const batcherOf = perStore(() => new WriteBatcher(record));
  return (deps, item) => batcherOf(deps.store).submit(deps, item);
}
