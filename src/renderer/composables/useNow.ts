import { onScopeDispose, ref, type Ref } from 'vue';

const now = ref(Date.now());
let users = 0;
let timer: ReturnType<typeof setInterval> | undefined;

/** A clock shared by every relative time on the page, ticking every 15 s while something shows one. */
export function useNow(): Ref<number> {
  users += 1;
  if (!timer) {
    now.value = Date.now();
    timer = setInterval(() => (now.value = Date.now()), 15_000);
  }
  onScopeDispose(() => {
    users -= 1;
    if (users === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  });
  return now;
}
