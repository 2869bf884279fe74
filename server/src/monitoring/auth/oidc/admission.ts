import type { Role } from '../TokenService.js';
import type { OidcClaimRule, ResolvedOidcOptions } from './oidcOptions.js';

export type Admission = { ok: true; username: string; role: Role } | { ok: false; detail: string };

function matches(claims: Record<string, unknown>, rule: OidcClaimRule): boolean {
  const v = claims[rule.claim];
  return Array.isArray(v) ? v.includes(rule.value) : v === rule.value;
}

/** The session's username: the e-mail address, else the preferred username, else the subject. */
function usernameOf(claims: Record<string, unknown>): string {
  for (const name of ['email', 'preferred_username', 'sub']) {
    const v = claims[name];
    if (typeof v === 'string' && v !== '') return v;
  }
  return 'oidc-user';
}

/**
 * Who may come in, and with which role, from the ID token's claims:
 * - with allowed e-mail domains, the `email` claim must be present, not marked unverified
 *   (`email_verified: false`), and in one of them;
 * - the operate rule grants operate; otherwise the read rule, when set, must match (it is the
 *   claim allow-list), and without one every admitted user reads.
 */
export function admit(claims: Record<string, unknown>, o: ResolvedOidcOptions): Admission {
  if (o.allowedEmailDomains.length > 0) {
    const email = claims.email;
    if (typeof email !== 'string' || !email.includes('@')) {
      return { ok: false, detail: 'The identity provider gave no e-mail address, and this host admits only some e-mail domains.' };
    }
    if (claims.email_verified === false) return { ok: false, detail: `The e-mail address ${email} is not verified at the identity provider.` };
    const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
    if (!o.allowedEmailDomains.includes(domain)) {
      return { ok: false, detail: `The e-mail domain ${domain} is not allowed to sign in to this monitoring.` };
    }
  }
  const username = usernameOf(claims);
  if (o.operateRole && matches(claims, o.operateRole)) return { ok: true, username, role: 'operate' };
  if (o.readRole && !matches(claims, o.readRole)) {
    return { ok: false, detail: `${username} is not allowed to sign in to this monitoring (no "${o.readRole.value}" in the "${o.readRole.claim}" claim).` };
  }
  return { ok: true, username, role: 'read' };
}
