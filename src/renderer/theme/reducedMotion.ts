import { readonly, ref } from 'vue';

const media = typeof window !== 'undefined' && window.matchMedia ? window.matchMedia('(prefers-reduced-motion: reduce)') : null;
const reduce = ref(media?.matches ?? false);
media?.addEventListener?.('change', (e) => {
  reduce.value = e.matches;
});

/**
 * Whether the user asked the system for less motion (`prefers-reduced-motion: reduce`), kept up
 * to date while the page is open. Charts then draw their final state at once instead of
 * animating, as the spinner stops turning (app.css).
 */
export const prefersReducedMotion = readonly(reduce);
