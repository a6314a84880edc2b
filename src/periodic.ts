/**
 * Runs `pass` every `everyMs` (the first after `firstMs`), one pass at a time: the next is timed from the end of the
 * last, so a slow pass never overlaps the next. Returns its stop, which waits for a pass under way, so nothing uses
 * the connections its caller closes next. `pass` handles its own failures; one that throws ends no loop.
 */
export function every(everyMs: number, firstMs: number, pass: () => Promise<unknown>): () => Promise<void> {
  let running = true;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<unknown> | undefined;
  const tick = async () => {
    current = pass().catch(() => undefined);
    await current;
    current = undefined;
    if (running) timer = setTimeout(() => void tick(), everyMs);
  };
  timer = setTimeout(() => void tick(), firstMs);
  return async () => {
    running = false;
    if (timer) clearTimeout(timer);
    await current;
  };
}
