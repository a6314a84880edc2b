/**
 * Workflow starts served round robin across tenants: at most `concurrency` run at once, and when more wait, the
 * next to run is the oldest start of the tenant after the last one served, so a tenant with a thousand starts
 * queued delays another tenant's start by at most one turn. The API's background start pool and the release of
 * held jobs run their starts through it; it holds no state beyond the starts waiting in this process.
 */
export class FairStarts {
  /** Starts waiting, per key; a Map keeps keys in the order they were (re)queued, which is the round. */
  private readonly waiting = new Map<string, (() => void)[]>();
  private running = 0;
  private queued = 0;

  constructor(private readonly concurrency: number) {}

  /** Starts running or waiting in this pool. */
  get size(): number {
    return this.running + this.queued;
  }

  /** Runs `start` when its turn comes; resolves or rejects with it. */
  run<T>(key: string, start: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const go = () => {
        this.running++;
        start()
          .then(resolve, reject)
          .finally(() => {
            this.running--;
            this.next();
          });
      };
      const queue = this.waiting.get(key);
      if (queue) queue.push(go);
      else this.waiting.set(key, [go]);
      this.queued++;
      this.next();
    });
  }

  private next(): void {
    while (this.running < this.concurrency && this.queued > 0) {
      const [key, queue] = this.waiting.entries().next().value as [string, (() => void)[]];
      const go = queue.shift()!;
      // The key goes to the back of the round, with what it still has waiting.
      this.waiting.delete(key);
      if (queue.length > 0) this.waiting.set(key, queue);
      this.queued--;
      go();
    }
  }
}
