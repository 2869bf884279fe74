/**
 * Reads `#token=…` from the current address and removes the fragment from the address bar
 * and from history (replaceState rewrites the current entry, so Back never shows the token).
 */
export function takeMagicToken(location: Pick<Location, 'hash' | 'pathname' | 'search'>, history: Pick<History, 'replaceState' | 'state'>): string | null {
  const taken = takeSignInFragment(location, history);
  return taken?.kind === 'magic' ? taken.token : null;
}

/**
 * The sign-in the magic page was sent with: `#token=<magic-link token>` (to exchange at
 * POST /auth/magic) or `#session=<session JWT>` (single sign-on: the server already issued the
 * session). Either way the fragment is wiped from the address bar and history at once.
 */
export function takeSignInFragment(
  location: Pick<Location, 'hash' | 'pathname' | 'search'>,
  history: Pick<History, 'replaceState' | 'state'>,
): { kind: 'magic' | 'session'; token: string } | null {
  const hash = location.hash.startsWith('#') ? location.hash.slice(1) : location.hash;
  const params = new URLSearchParams(hash);
  if (location.hash) history.replaceState(history.state, '', `${location.pathname}${location.search}`);
  for (const kind of ['magic', 'session'] as const) {
    const value = params.get(kind === 'magic' ? 'token' : 'session')?.trim();
    if (value) return { kind, token: value };
  }
  return null;
}
