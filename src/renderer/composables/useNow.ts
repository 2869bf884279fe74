import { onScopeDispose, ref, type Ref } from 'vue';

const now = ref(Date.now());
let users = 0;
let timer: ReturnType<typeof setInterval> | undefined;

/**
 * A clock shared by every relative time on the page, ticking every 15 s while something shows one.
 * A stamp drawn between ticks reads the time of its drawing (the clock moves on for everyone then),
 * so a row created at this moment says "just now", never "in a few seconds" or the time of the last tick.
 */
export function useNow(): Ref<number> {
  users += 1;
  now.value = Date.now();
  if (!timer) timer = setInterval(() => (now.value = Date.now()), 15_000);
  onScopeDispose(() => {
    users -= 1;
    if (users === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  });
  return now;
}
