import { every } from '../../src/periodic';

describe('every: the loops beside the worker', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs one pass at a time, timing the next from the end of the last', async () => {
    let running = 0;
    let most = 0;
    const ends: (() => void)[] = [];
    const stop = every(100, 10, async () => {
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => ends.push(resolve));
      running--;
    });
    await jest.advanceTimersByTimeAsync(10);
    expect(ends).toHaveLength(1);
    // A slow pass: no second one starts while it runs, however long it takes.
    await jest.advanceTimersByTimeAsync(1000);
    expect(ends).toHaveLength(1);
    ends[0]();
    await jest.advanceTimersByTimeAsync(99);
    expect(ends).toHaveLength(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(ends).toHaveLength(2);
    ends[1]();
    await stop();
    expect(most).toBe(1);
  });

  it('keeps going after a pass that throws', async () => {
    let passes = 0;
    const stop = every(50, 0, async () => {
      passes++;
      throw new Error('Postgres is away');
    });
    await jest.advanceTimersByTimeAsync(120);
    expect(passes).toBe(3);
    await stop();
  });

  it('stop waits for the pass under way, and no pass starts after it', async () => {
    let finish: () => void = () => undefined;
    let passes = 0;
    let finished = false;
    const stop = every(10, 0, async () => {
      passes++;
      await new Promise<void>((resolve) => (finish = resolve));
      finished = true;
    });
    await jest.advanceTimersByTimeAsync(0);
    const stopped = stop();
    let done = false;
    void stopped.then(() => (done = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(done).toBe(false);
    finish();
    await stopped;
    expect(finished).toBe(true);
    await jest.advanceTimersByTimeAsync(100);
    expect(passes).toBe(1);
  });
});
