import { ConsoleError } from '../ConsoleError.js';

type Fetch = (input: string | Request, init?: RequestInit) => Promise<Response>;

/** The message for an answer that redirects: the console follows none. */
export function redirectRefusal(location: string | null | undefined, from: string): string {
  let where = 'another address';
  if (location) {
    try {
      where = new URL(location, from).href;
    } catch {
      where = location;
    }
  }
  return `the host answered with a redirect to ${where}; the console follows no redirects, so a token never leaves the environment's own address (set the environment's base URL to the address the host redirects to)`;
}

/**
 * A fetch that never follows a redirect. The environment's requests carry its bearer token, and
 * a followed redirect would send it wherever the answer points (axios' fetch adapter does not
 * apply `maxRedirects`). A redirect answer, or the opaque answer a browser stack gives for one,
 * fails the request with a ConsoleError saying where it pointed.
 */
export function refuseRedirects(fetch: Fetch): Fetch {
  return async (input, init) => {
    const response = await fetch(input, { ...init, redirect: 'manual' });
    const redirected = response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400 && response.status !== 304);
    if (!redirected) return response;
    void response.body?.cancel().catch(() => undefined);
    throw new ConsoleError('network', redirectRefusal(response.headers.get('location'), typeof input === 'string' ? input : input.url));
  };
}
