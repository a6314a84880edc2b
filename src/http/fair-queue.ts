/** Why a request was not served: its flow's queue was full, or its wait ran past the longest allowed. */
export type ShedReason = 'queue_full' | 'wait';

export class Shed extends Error {
  constructor(
    readonly reason: ShedReason,
    readonly retryAfterSeconds: number,
  ) {
    super(reason);
  }
}

export interface FairQueueSettings {
  /** Requests served at once. */
  seats: number;
  /** Requests one flow may have waiting; past it the flow's next request is shed at once. */
  queueLength: number;
  /** Requests all flows together may have waiting (bounds memory whatever the number of flows). */
  totalQueueLength: number;
  /** Longest a request waits for a seat before it is shed. */
  maxWaitMs: number;
}

interface Waiter {
  admit: (waitedMs: number) => void;
  timer: NodeJS.Timeout;
  since: number;
}

/** A seat held: release it once the request is answered (a second call does nothing). */
export interface Seat {
  release(): void;
  waitedMs: number;
}

/**
 * Fair queuing of one priority level (Kubernetes API Priority and Fairness, with one queue per flow instead of
 * shuffle-sharded ones): at most `seats` requests are served at once; when all are taken, a request waits in its
 * flow's queue and the next free seat goes to the oldest request of the flow after the last one served, so a flow
 * with a hundred requests queued delays another flow's one by one turn. A full queue or a wait past `maxWaitMs`
 * sheds the request (the caller answers 429 with Retry-After): never an unbounded wait.
 */
export class FairQueue {
  /** Waiting requests per flow; a Map keeps flows in the order they were (re)queued, which is the round. */
  private readonly flows = new Map<string, Waiter[]>();
  private busy = 0;
  private queued = 0;
  /** A moving average of how long a seat is held, for Retry-After. */
  private serviceMs = 10;

  constructor(private readonly settings: FairQueueSettings) {}

  get inUse(): number {
    return this.busy;
  }

  get waiting(): number {
    return this.queued;
  }

  /** Resolves with a seat when the flow's turn comes; rejects with `Shed` when the request must not wait. */
  acquire(flow: string): Promise<Seat> {
    if (this.busy < this.settings.seats && this.queued === 0) {
      this.busy++;
      return Promise.resolve(this.seat(0));
    }
    const queue = this.flows.get(flow);
    if ((queue?.length ?? 0) >= this.settings.queueLength || this.queued >= this.settings.totalQueueLength) {
      return Promise.reject(new Shed('queue_full', this.drainSeconds((queue?.length ?? 0) + 1)));
    }
    return new Promise<Seat>((resolve, reject) => {
      const waiter: Waiter = {
        since: performance.now(),
        admit: (waitedMs) => resolve(this.seat(waitedMs)),
        timer: setTimeout(() => {
          const own = this.flows.get(flow);
          const at = own ? own.indexOf(waiter) : -1;
          if (at < 0) return;
          own!.splice(at, 1);
          if (own!.length === 0) this.flows.delete(flow);
          this.queued--;
          reject(new Shed('wait', this.drainSeconds(own!.length + 1)));
        }, this.settings.maxWaitMs),
      };
      if (queue) queue.push(waiter);
      else this.flows.set(flow, [waiter]);
      this.queued++;
    });
  }

  /** Seconds until `ahead` requests of one flow would be served, at least 1: the Retry-After of a shed. */
  private drainSeconds(ahead: number): number {
    return Math.max(1, Math.ceil((ahead * this.serviceMs) / this.settings.seats / 1000));
  }

  private seat(waitedMs: number): Seat {
    const started = performance.now();
    let held = true;
    return {
      waitedMs,
      release: () => {
        if (!held) return;
        held = false;
        this.serviceMs = 0.9 * this.serviceMs + 0.1 * (performance.now() - started);
        this.busy--;
        this.next();
      },
    };
  }

  private next(): void {
    while (this.busy < this.settings.seats && this.queued > 0) {
      const [flow, queue] = this.flows.entries().next().value as [string, Waiter[]];
      const waiter = queue.shift()!;
      // The flow goes to the back of the round, with what it still has waiting.
      this.flows.delete(flow);
      if (queue.length > 0) this.flows.set(flow, queue);
      this.queued--;
      this.busy++;
      clearTimeout(waiter.timer);
      waiter.admit(performance.now() - waiter.since);
    }
  }
}
