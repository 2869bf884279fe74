/** How a wait that had a limit ended. */
export type Bounded<T> = { done: true; value: T } | { done: false };

/**
 * Waits for `work` at most `ms`. The work is not cancelled (nothing here can cancel it); the
 * caller only stops waiting, and says what it cut short.
 */
export async function withinTime<T>(work: Promise<T>, ms: number): Promise<Bounded<T>> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<{ done: false }>((resolve) => {
    timer = setTimeout(() => resolve({ done: false }), Math.max(0, ms));
    timer.unref?.();
  });
  try {
    return await Promise.race([work.then((value) => ({ done: true as const, value })), late]);
  } finally {
    clearTimeout(timer);
  }
}
