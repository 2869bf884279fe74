import { mediaQueryMatches } from './mediaQuery.js';

/**
 * Whether the user asked the system for less motion (`prefers-reduced-motion: reduce`), kept up
 * to date while the page is open. Charts then draw their final state at once instead of
 * animating, as the spinner stops turning (app.css).
 */
export const prefersReducedMotion = mediaQueryMatches('(prefers-reduced-motion: reduce)');
