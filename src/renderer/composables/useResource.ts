import { onScopeDispose, ref, shallowRef, watch, type Ref, type ShallowRef } from 'vue';
import { describeError, isApiError } from '../platform/ApiError.js';
import { useLiveStore } from '../stores/live.js';

export interface Resource<T> {
  data: ShallowRef<T | undefined>;
  error: Ref<string | null>;
  /** HTTP status of the last error (0 = network), null without error. */
  errorStatus: Ref<number | null>;
  /** True while a request is in flight (the previous data stays visible). */
  loading: Ref<boolean>;
  /** True until the first answer (data or error) arrived for the current key. */
  initial: Ref<boolean>;
  reload: () => Promise<void>;
}

/**
 * Loads data for a page and reloads it when `key()` changes (data of another key is dropped)
 * and, when `live` is on, whenever the live store invalidates the cache (data kept meanwhile).
 */
export interface ResourceOptions {
  key?: () => unknown;
  live?: boolean;
  /** While true, live invalidations are held back (the data stays still); released when it turns false. */
  paused?: Ref<boolean>;
  /** At most one live reload per this many milliseconds (lists: rows do not move while being read). */
  minIntervalMs?: number;
}

export function useResource<T>(loader: () => Promise<T>, options: ResourceOptions = {}): Resource<T> {
  const data = shallowRef<T | undefined>(undefined);
  const error = ref<string | null>(null);
  const errorStatus = ref<number | null>(null);
  const loading = ref(false);
  const initial = ref(true);
  let seq = 0;
  let disposed = false;

  async function reload(): Promise<void> {
    const mine = ++seq;
    loading.value = true;
    try {
      const result = await loader();
      if (mine !== seq || disposed) return;
      data.value = result;
      error.value = null;
      errorStatus.value = null;
    } catch (e) {
      if (mine !== seq || disposed) return;
      error.value = describeError(e);
      errorStatus.value = isApiError(e) ? e.status : null;
    } finally {
      if (mine === seq && !disposed) {
        loading.value = false;
        initial.value = false;
      }
    }
  }

  const keyFn = options.key ?? (() => null);
  watch(
    () => JSON.stringify(keyFn() ?? null),
    () => {
      data.value = undefined;
      error.value = null;
      errorStatus.value = null;
      initial.value = true;
      void reload();
    },
    { immediate: true },
  );
  let stale = false;
  let lastLiveReload = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const liveReload = () => {
    if (options.paused?.value) {
      stale = true;
      return;
    }
    const wait = (options.minIntervalMs ?? 0) - (Date.now() - lastLiveReload);
    if (wait > 0) {
      timer ??= setTimeout(() => {
        timer = undefined;
        liveReload();
      }, wait);
      return;
    }
    stale = false;
    lastLiveReload = Date.now();
    void reload();
  };
  if (options.live !== false) {
    const live = useLiveStore();
    watch(
      () => live.version,
      () => liveReload(),
    );
  }
  if (options.paused) {
    watch(options.paused, (paused) => {
      if (!paused && stale) liveReload();
    });
  }
  onScopeDispose(() => {
    disposed = true;
    if (timer) clearTimeout(timer);
  });
  return { data, error, errorStatus, loading, initial, reload };
}
