import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';

/** Larger than any real CA bundle; a bigger file is not what the user meant to pick. */
const MAX_FILE_BYTES = 1024 * 1024;
const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The CA certificate file of an environment cannot be used; the message names the file and why. */
export class CaCertificateFileError extends Error {
  override name = 'CaCertificateFileError';
}

/** The certificates of a PEM file, each checked to parse as an X.509 certificate. */
export interface CaCertificates {
  path: string;
  /** One PEM block per certificate, in file order. */
  pems: string[];
  certificates: X509Certificate[];
}

/**
 * Reads and validates a PEM file of CA certificates: readable, not larger than 1 MB, at least
 * one `BEGIN CERTIFICATE` block, and every block a well-formed X.509 certificate. Read
 * synchronously: it is small, and read once when an environment is saved or (re)connects.
 */
export function readCaCertificates(path: string): CaCertificates {
  let text: string;
  try {
    const size = statSync(path).size;
    if (size > MAX_FILE_BYTES) throw new CaCertificateFileError(`caCertificatePath: "${path}" is ${size} bytes; a CA certificate file is at most 1 MB`);
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof CaCertificateFileError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a folder' : (err as Error).message;
    throw new CaCertificateFileError(`caCertificatePath: cannot read "${path}": ${why}`);
  }
  const pems = text.match(PEM_BLOCK) ?? [];
  if (pems.length === 0) {
    throw new CaCertificateFileError(`caCertificatePath: "${path}" holds no PEM certificate (expected "-----BEGIN CERTIFICATE-----" blocks)`);
  }
  const certificates = pems.map((pem, i) => {
    try {
      return new X509Certificate(pem);
    } catch (err) {
      throw new CaCertificateFileError(`caCertificatePath: certificate ${i + 1} in "${path}" does not parse: ${(err as Error).message}`);
    }
  });
  return { path, pems, certificates };
}
