/**
 * At most `size` pieces of work at once (per process); the rest wait their turn in order. For
 * CPU-heavy steps of requests (decoding pictures, probing videos) so a burst queues instead of
 * starving everything else.
 */
export function createSlots(size: number): <T>(work: () => Promise<T>) => Promise<T> {
  let busy = 0;
  const waiting: (() => void)[] = [];
  return async (work) => {
    if (busy >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    else busy += 1;
    try {
      return await work();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else busy -= 1;
    }
  };
}
