import type { SingleSignOnFailureCode } from '../../../server/src/contracts/task.js';

/** What the login page says when single sign-on sent the browser back with `?sso_error=<code>`. */
const MESSAGES: Record<SingleSignOnFailureCode, string> = {
  not_configured: 'Single sign-on is not configured on this server.',
  bad_request: 'The single sign-on request was malformed. Try again.',
  issuer_unavailable: 'The identity provider cannot be reached right now. Sign in with a password, or try again later.',
  state_mismatch: 'This sign-in did not start here or took too long. Please sign in again.',
  nonce_mismatch: 'The identity provider answered for another sign-in. Please sign in again.',
  provider_refused: 'The identity provider refused the sign-in.',
  invalid_response: 'The identity provider gave an answer that could not be used. Try again, or ask an administrator.',
  not_allowed: 'Your account is not allowed to sign in to this monitoring (its e-mail domain or groups). Ask an administrator for access.',
};

/** The message for a failure code from the address, or null when there is none (an unknown code reads as a generic failure). */
export function singleSignOnFailure(value: unknown): string | null {
  const code = Array.isArray(value) ? value[0] : value;
  if (typeof code !== 'string' || code === '') return null;
  return (MESSAGES as Record<string, string>)[code] ?? 'Single sign-on failed. Please try again.';
}
