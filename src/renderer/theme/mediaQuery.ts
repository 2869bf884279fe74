import { readonly, ref, type Ref } from 'vue';

/**
 * Whether the page matches a CSS media query (a system preference such as
 * `(prefers-color-scheme: dark)`), kept up to date while the page is open; `onChange` runs right
 * after each change. False where there is no window (server-side code, tests without a DOM).
 */
export function mediaQueryMatches(query: string, onChange?: () => void): Readonly<Ref<boolean>> {
  const media = typeof window !== 'undefined' && window.matchMedia ? window.matchMedia(query) : null;
  const matches = ref(media?.matches ?? false);
  media?.addEventListener?.('change', (e) => {
    matches.value = e.matches;
    onChange?.();
  });
  return readonly(matches);
}
