/**
 * Node's TLS verification codes (also on undici and axios errors) and Chromium's
 * `net::ERR_CERT_*` names, as a user reads them.
 */
const CERTIFICATE_PROBLEMS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'it is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'it chains to a self-signed CA that is not trusted',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'it is issued by a CA that is not trusted',
  UNABLE_TO_GET_ISSUER_CERT: 'it is issued by a CA that is not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'it is issued by a CA that is not trusted',
  CERT_UNTRUSTED: 'it is not trusted',
  CERT_HAS_EXPIRED: 'it has expired',
  CERT_NOT_YET_VALID: 'it is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'it is issued for another host name',
  'net::ERR_CERT_AUTHORITY_INVALID': 'it is issued by a CA that is not trusted (or is self-signed)',
  'net::ERR_CERT_COMMON_NAME_INVALID': 'it is issued for another host name',
  'net::ERR_CERT_DATE_INVALID': 'it has expired or is not valid yet',
  'net::ERR_CERT_INVALID': 'it is invalid',
  'net::ERR_CERT_REVOKED': 'it has been revoked',
};

/** The certificate problem behind a failed request, if that is what failed. */
export function certificateProblemOf(err: unknown): { code: string; problem: string } | undefined {
  const seen = new Set<unknown>();
  for (let e: unknown = err; e && typeof e === 'object' && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && CERTIFICATE_PROBLEMS[code]) return { code, problem: CERTIFICATE_PROBLEMS[code] };
    const message = (e as { message?: unknown }).message;
    const named = typeof message === 'string' ? /net::ERR_CERT_[A-Z_]+/.exec(message)?.[0] : undefined;
    if (named) return { code: named, problem: CERTIFICATE_PROBLEMS[named] ?? 'it is not trusted' };
  }
  return undefined;
}

/**
 * One line for a request that got no answer. A certificate problem is named with what to do
 * about it; other failures keep the innermost cause's message ("connect ECONNREFUSED …"),
 * which says more than a wrapper's "fetch failed" or "Network Error".
 */
export function describeNetworkFailure(err: unknown): string {
  const certificate = certificateProblemOf(err);
  if (certificate) {
    return `the server's TLS certificate is not trusted: ${certificate.problem} (${certificate.code}). Add the CA certificate file of this host to the environment (or, for a non-production environment, allow self-signed certificates)`;
  }
  let message = err instanceof Error ? err.message : String(err);
  const seen = new Set<unknown>([err]);
  for (let e = (err as { cause?: unknown })?.cause; e instanceof Error && !seen.has(e); e = e.cause) {
    seen.add(e);
    if (e.message) message = e.message;
  }
  return message;
}
