/**
 * Reads `#token=…` from the current address and removes the fragment from the address bar
 * and from history (replaceState rewrites the current entry, so Back never shows the token).
 */
export function takeMagicToken(location: Pick<Location, 'hash' | 'pathname' | 'search'>, history: Pick<History, 'replaceState' | 'state'>): string | null {
  const hash = location.hash.startsWith('#') ? location.hash.slice(1) : location.hash;
  const token = new URLSearchParams(hash).get('token');
  if (location.hash) history.replaceState(history.state, '', `${location.pathname}${location.search}`);
  return token && token.trim() !== '' ? token.trim() : null;
}
