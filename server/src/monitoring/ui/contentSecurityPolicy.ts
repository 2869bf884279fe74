/** A policy of this origin only, no inline or evaluated script, no framing; `styles` are the style directives. */
function sameOriginPolicy(styles: string[]): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    ...styles,
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * The dashboard's Content-Security-Policy: everything from this origin only, no inline or
 * evaluated script, no framing. Style attributes are allowed (style-src-attr): the charts
 * (ECharts) write inline style attributes into their tooltips and labels; style elements and
 * sheets still come from this origin only. data: images cover the inline favicon.
 */
export const DASHBOARD_CSP = sameOriginPolicy(["style-src 'self'", "style-src-attr 'unsafe-inline'"]);

/**
 * The API reference page (Scalar): the same, except that Scalar inserts its own style elements
 * at run time, so styles may be inline there. Scripts stay 'self' only.
 */
export const REFERENCE_CSP = sameOriginPolicy(["style-src 'self' 'unsafe-inline'"]);
