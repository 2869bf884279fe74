import type { OptionReader } from '../../../options/OptionReader.js';
import type { Role } from '../TokenService.js';

/** A claim that grants a role: the claim equals the value, or is an array containing it (`{ claim: 'groups', value: 'svc-operators' }`). */
export interface OidcClaimRule {
  claim: string;
  value: string;
}

/** One sign-in, as the operator audit trail records it (the `onSignIn` hook). */
export interface SignInEvent {
  method: 'oidc';
  outcome: 'succeeded' | 'refused';
  /** Who signed in (or tried to; undefined when the refusal came before any identity was known). */
  username?: string;
  role?: Role;
  /** Why a sign-in was refused (a fixed code, see OidcFailure). */
  reason?: string;
  clientAddress?: string;
  userAgent?: string;
  atMs: number;
}

export interface ResolvedOidcOptions {
  issuer: URL;
  clientId: string;
  /** null: a public client (PKCE only, no client authentication). */
  clientSecret: string | null;
  scopes: string;
  readRole: OidcClaimRule | null;
  operateRole: OidcClaimRule | null;
  /** Lower-case e-mail domains allowed in (empty: any). */
  allowedEmailDomains: string[];
  displayName: string;
}

/** The defaults of the single sign-on options that have one. */
export const OIDC_DEFAULTS = { scopes: 'openid profile email', displayName: 'single sign-on' } as const;

export const OIDC_OPTION_NAMES = [
  'oidcIssuer',
  'oidcClientId',
  'oidcClientSecret',
  'oidcScopes',
  'oidcReadRole',
  'oidcOperateRole',
  'oidcAllowedEmailDomains',
  'oidcDisplayName',
] as const;

type OidcOptionName = (typeof OIDC_OPTION_NAMES)[number];

/** An issuer must be https; plain http only on a loopback host (a provider on the same machine, tests). */
function issuerUrl(read: OptionReader<Record<OidcOptionName, unknown>>, text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw read.fail('oidcIssuer', `must be a URL like https://login.example.com/realms/ops (got "${text}")`);
  }
  const loopback = url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw read.fail('oidcIssuer', `must be an https URL (http only on localhost) (got "${text}")`);
  }
  if (url.search !== '' || url.hash !== '') throw read.fail('oidcIssuer', 'must have no query or fragment');
  return url;
}

function claimRule(read: OptionReader<Record<OidcOptionName, unknown>>, name: 'oidcReadRole' | 'oidcOperateRole'): OidcClaimRule | null {
  const v = read.value(name);
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) throw read.fail(name, 'must be {"claim": "groups", "value": "svc-operators"}');
  const rule = read.child(name, ['claim', 'value']);
  const claim = rule.string('claim', undefined);
  const value = rule.string('value', undefined);
  if (claim === undefined) throw rule.fail('claim', 'is required (the name of a claim of the ID token, e.g. "groups")');
  if (value === undefined) throw rule.fail('value', 'is required (the value the claim must equal or contain)');
  return { claim, value };
}

/**
 * The single sign-on options: all absent means no OpenID Connect sign-in; any of them without
 * `oidcIssuer`, or an issuer without `oidcClientId`, is refused naming the option.
 */
export function resolveOidcOptions(read: OptionReader<Record<OidcOptionName, unknown>>): ResolvedOidcOptions | null {
  const issuerText = read.string('oidcIssuer', null);
  if (issuerText === null) {
    const stray = OIDC_OPTION_NAMES.find((name) => name !== 'oidcIssuer' && read.has(name));
    if (stray !== undefined) throw read.fail(stray, 'needs oidcIssuer (single sign-on is off without an issuer)');
    return null;
  }
  const issuer = issuerUrl(read, issuerText);
  const clientId = read.string('oidcClientId', null);
  if (clientId === null) throw read.fail('oidcClientId', 'is required with oidcIssuer (the client id registered at the provider)');
  const scopes = read.string('oidcScopes', OIDC_DEFAULTS.scopes).trim().split(/\s+/);
  if (!scopes.includes('openid')) throw read.fail('oidcScopes', `must include "openid" (got "${scopes.join(' ')}")`);
  const allowedEmailDomains = read.strings('oidcAllowedEmailDomains').map((d) => d.toLowerCase().replace(/^@/, ''));
  for (const domain of allowedEmailDomains) {
    if (!/^[a-z0-9.-]+\.[a-z0-9-]+$/.test(domain)) throw read.fail('oidcAllowedEmailDomains', `has "${domain}", which is not a domain like example.com`);
  }
  return {
    issuer,
    clientId,
    clientSecret: read.string('oidcClientSecret', null),
    scopes: scopes.join(' '),
    readRole: claimRule(read, 'oidcReadRole'),
    operateRole: claimRule(read, 'oidcOperateRole'),
    allowedEmailDomains,
    displayName: read.string('oidcDisplayName', OIDC_DEFAULTS.displayName),
  };
}
