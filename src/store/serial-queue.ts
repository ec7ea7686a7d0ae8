/**
 * Runs jobs one at a time, in the order they were asked for: each store's writer, whatever the
 * engine, runs one transaction at a time (docs/architecture.md#the-write-path, docs/store-engines.md#one-interface-two-engines).
 */
export class SerialQueue {
  private readonly jobs: Array<() => Promise<void>> = [];
  private running = false;

  /** Runs `job` once every job queued before it has settled; answers what it answers. */
  run<T>(job: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.jobs.push(() => job().then(resolve, reject));
      void this.drain();
    });
  }

  /** How many jobs wait for the one running. */
  get waiting(): number {
    return this.jobs.length;
  }

  /** Resolves once nothing is queued or running. */
  async settled(): Promise<void> {
    while (this.running || this.jobs.length > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let job = this.jobs.shift(); job; job = this.jobs.shift()) await job();
    } finally {
      this.running = false;
    }
  }
}
