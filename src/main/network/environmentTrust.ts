import tls from 'node:tls';
import type { Environment } from '../../shared/environment.js';
import { selfSignedRefusal } from '../environments/environment.js';
import { readCaCertificates, type CaCertificates } from './caCertificates.js';

/** How the TLS certificate of an environment's host is checked, beyond the system's trust. */
export interface EnvironmentTrust {
  /** Extra CA certificates the host's certificate may chain to. */
  extraCa?: CaCertificates;
  /** No verification of the host's certificate (never for production). */
  allowSelfSigned: boolean;
}

/** The environment's TLS settings cannot be used (production with "allow self-signed"). */
export class TrustSettingsError extends Error {
  override name = 'TrustSettingsError';
}

/** Reads the environment's CA file and applies the production rule; throws with the reason. */
export function environmentTrust(environment: Environment): EnvironmentTrust {
  const refusal = selfSignedRefusal(environment);
  if (refusal) throw new TrustSettingsError(refusal);
  const path = environment.caCertificatePath;
  return {
    allowSelfSigned: environment.allowSelfSigned === true,
    ...(path ? { extraCa: readCaCertificates(path) } : {}),
  };
}

/** Whether the environment needs anything beyond the system's certificate checks. */
export function hasCustomTrust(environment: Environment): boolean {
  return environment.allowSelfSigned === true || (environment.caCertificatePath ?? '') !== '';
}

type CaStore = 'default' | 'system' | 'bundled';
const getCaCertificates = (tls as unknown as { getCACertificates?: (store?: CaStore) => string[] }).getCACertificates;

/**
 * The CA list for a Node TLS connection that must trust the extra CA as well: Node's default
 * roots, the operating system's store where this Node can read it (Electron's Node can), and
 * the extra certificates. A `ca` option replaces the default list, hence the union.
 */
export function caListWith(extra: readonly string[]): string[] {
  const base = getCaCertificates ? [...getCaCertificates('default'), ...safeSystemStore()] : [...tls.rootCertificates];
  return [...new Set([...base, ...extra])];
}

function safeSystemStore(): string[] {
  try {
    return getCaCertificates?.('system') ?? [];
  } catch {
    return [];
  }
}
