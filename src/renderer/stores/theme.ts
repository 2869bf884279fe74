import { defineStore } from 'pinia';
import { computed, ref } from 'vue';

export type ThemePreference = 'system' | 'light' | 'dark';
const KEY = 'svc-monitoring.theme';

function readPreference(): ThemePreference {
  try {
    const v = window.localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

/** Light and dark themes: follows the system until the user picks one. */
export const useThemeStore = defineStore('theme', () => {
  const preference = ref<ThemePreference>(readPreference());
  const media = typeof window !== 'undefined' && window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;
  const systemDark = ref(media?.matches ?? false);
  media?.addEventListener?.('change', (e) => {
    systemDark.value = e.matches;
    apply();
  });
  const effective = computed<'light' | 'dark'>(() =>
    preference.value === 'system' ? (systemDark.value ? 'dark' : 'light') : preference.value,
  );

  function apply(): void {
    if (typeof document !== 'undefined') {
      document.documentElement.dataset.theme = effective.value;
      document.documentElement.style.colorScheme = effective.value;
    }
  }

  function set(next: ThemePreference): void {
    preference.value = next;
    try {
      if (next === 'system') window.localStorage.removeItem(KEY);
      else window.localStorage.setItem(KEY, next);
    } catch {
      /* storage unavailable: keep it for this page only */
    }
    apply();
  }

  function cycle(): void {
    set(preference.value === 'system' ? (effective.value === 'dark' ? 'light' : 'dark') : preference.value === 'dark' ? 'light' : 'system');
  }

  apply();
  return { preference, effective, set, cycle, apply };
});
