import { isProxy, toRaw } from 'vue';

/**
 * Electron's contextBridge copies every argument with the structured clone algorithm, which
 * refuses a Vue reactive proxy ("An object could not be cloned") at any depth:
 * `{ ...state.settings }` still holds reactive arrays. Copy to plain arrays and objects first.
 */
export function toPlainData<T>(value: T): T {
  const raw = isProxy(value) ? toRaw(value) : value;
  if (Array.isArray(raw)) return raw.map((v) => toPlainData(v)) as T;
  if (raw !== null && typeof raw === 'object' && Object.getPrototypeOf(raw) === Object.prototype) {
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, toPlainData(v)])) as T;
  }
  return raw;
}
