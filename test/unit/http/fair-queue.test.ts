import { FairQueue, Shed, type Seat } from '../../../src/http/fair-queue';

const settings = { seats: 1, queueLength: 10, totalQueueLength: 100, maxWaitMs: 60_000 };

describe('FairQueue', () => {
  it('serves waiting flows in turn, each in its own order, however many one of them queued first', async () => {
    const queue = new FairQueue(settings);
    const first = await queue.acquire('busy');
    const served: string[] = [];
    const waits = [
      ...['busy1', 'busy2', 'busy3'].map((name) => ({ flow: 'busy', name })),
      { flow: 'quiet', name: 'quiet1' },
      { flow: 'other', name: 'other1' },
      { flow: 'other', name: 'other2' },
    ].map(({ flow, name }) =>
      queue.acquire(flow).then((seat) => {
        served.push(name);
        seat.release();
      }),
    );
    expect(queue.waiting).toBe(6);
    first.release();
    await Promise.all(waits);
    expect(served).toEqual(['busy1', 'quiet1', 'other1', 'busy2', 'other2', 'busy3']);
    expect(queue.inUse).toBe(0);
  });

  it('never serves more than its seats at once', async () => {
    const queue = new FairQueue({ ...settings, seats: 3 });
    let running = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const seat = await queue.acquire(`f${i % 4}`);
        peak = Math.max(peak, ++running);
        await new Promise((r) => setImmediate(r));
        running--;
        seat.release();
      }),
    );
    expect(peak).toBe(3);
  });

  it("sheds a flow's request past its queue length, with a Retry-After, and leaves other flows' queues alone", async () => {
    const queue = new FairQueue({ ...settings, queueLength: 2 });
    const held = await queue.acquire('flood');
    const queued = [queue.acquire('flood'), queue.acquire('flood')];
    const shed = await queue.acquire('flood').catch((err: unknown) => err);
    expect(shed).toBeInstanceOf(Shed);
    expect((shed as Shed).reason).toBe('queue_full');
    expect((shed as Shed).retryAfterSeconds).toBeGreaterThanOrEqual(1);
    const quiet = queue.acquire('quiet');
    held.release();
    const seats: Seat[] = [];
    for (const p of [queued[0], quiet, queued[1]]) {
      const seat = await p;
      seats.push(seat);
      seat.release();
    }
    expect(seats).toHaveLength(3);
  });

  it('sheds a request that waited past the longest wait instead of holding it', async () => {
    const queue = new FairQueue({ ...settings, maxWaitMs: 20 });
    const held = await queue.acquire('a');
    const waited = await queue.acquire('b').catch((err: unknown) => err);
    expect((waited as Shed).reason).toBe('wait');
    expect(queue.waiting).toBe(0);
    held.release();
    expect(queue.inUse).toBe(0);
  });

  it('frees a seat once however often it is released', async () => {
    const queue = new FairQueue({ ...settings, seats: 2 });
    const seat = await queue.acquire('a');
    await queue.acquire('b');
    seat.release();
    seat.release();
    expect(queue.inUse).toBe(1);
  });
});
