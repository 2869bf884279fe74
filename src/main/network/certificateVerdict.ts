import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import type { EnvironmentTrust } from './environmentTrust.js';

/** A certificate as Electron's verify callback describes it: PEM data and its issuer, if sent. */
export interface PresentedCertificate {
  data: string;
  issuerCert?: PresentedCertificate;
}

/** Electron's certificate-verify request, the part the verdict reads. */
export interface VerifyRequest {
  hostname: string;
  certificate: PresentedCertificate;
  /** 0 when Chromium itself accepted the certificate. */
  errorCode: number;
}

/** Electron's answers: accept, reject, or keep Chromium's own result. */
export const ACCEPT = 0;
export const REJECT = -2;
export const USE_CHROMIUM_RESULT = -3;

/**
 * What an environment's session answers for a host's certificate. Chromium's verification
 * (system trust store, revocation, host name) stands unless it failed and the environment
 * says otherwise: "allow self-signed" accepts it, an extra CA accepts a chain that leads to
 * one of its certificates with every certificate in date and the leaf issued for the host.
 */
export function certificateVerdict(request: VerifyRequest, trust: EnvironmentTrust, now: Date = new Date()): number {
  if (request.errorCode === 0) return USE_CHROMIUM_RESULT;
  if (trust.allowSelfSigned) return ACCEPT;
  if (trust.extraCa && chainsToExtraCa(request, trust.extraCa.certificates, now)) return ACCEPT;
  return USE_CHROMIUM_RESULT;
}

function chainsToExtraCa(request: VerifyRequest, cas: readonly X509Certificate[], now: Date): boolean {
  let chain: X509Certificate[];
  try {
    chain = presentedChain(request.certificate);
  } catch {
    return false;
  }
  const leaf = chain[0]!;
  const host = request.hostname.replace(/^\[|\]$/g, '');
  const forHost = isIP(host) ? leaf.checkIP(host) !== undefined : leaf.checkHost(host) !== undefined;
  if (!forHost) return false;
  for (let i = 0; i < chain.length; i++) {
    const cert = chain[i]!;
    if (!inDate(cert, now)) return false;
    if (i > 0 && !issuedBy(chain[i - 1]!, cert)) return false;
    if (cas.some((ca) => ca.fingerprint256 === cert.fingerprint256 || (issuedBy(cert, ca) && inDate(ca, now)))) return true;
  }
  return false;
}

function presentedChain(certificate: PresentedCertificate): X509Certificate[] {
  const chain: X509Certificate[] = [];
  const seen = new Set<string>();
  for (let c: PresentedCertificate | undefined = certificate; c && !seen.has(c.data) && chain.length < 10; c = c.issuerCert) {
    seen.add(c.data);
    chain.push(new X509Certificate(c.data));
  }
  return chain;
}

function issuedBy(cert: X509Certificate, issuer: X509Certificate): boolean {
  return cert.checkIssued(issuer) && cert.verify(issuer.publicKey);
}

function inDate(cert: X509Certificate, now: Date): boolean {
  return Date.parse(cert.validFrom) <= now.getTime() && now.getTime() <= Date.parse(cert.validTo);
}
