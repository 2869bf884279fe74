// Applies the theme before the first paint (no flash of the wrong theme). A file, not an
// inline script: the dashboard's Content-Security-Policy allows scripts from its origin only.
try {
  var p = localStorage.getItem('svc-monitoring.theme');
  var dark = p ? p === 'dark' : window.matchMedia('(prefers-color-scheme: dark)').matches;
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
} catch (e) {}
