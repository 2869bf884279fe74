/** One monitored host running the service. */
export interface Environment {
  id: string;
  name: string;
  /** Host address, e.g. `https://ops.example.com`; the API lives under `/svc-monitoring/api`. */
  baseUrl: string;
  /** `#rrggbb`, tints the window chrome when active. */
  colour: string;
  isProduction: boolean;
  group?: string;
  favourite?: boolean;
  /**
   * A PEM file with extra CA certificates this host's TLS certificate may chain to (a
   * corporate CA), trusted in addition to the system's. Empty in an edit: remove it.
   */
  caCertificatePath?: string;
  /** Accept the host's TLS certificate without verifying it; never for a production environment. */
  allowSelfSigned?: boolean;
  /**
   * A production environment at `http://` is refused unless the user typed its name here to
   * accept that its password and token travel unencrypted (a rename asks again). Empty in an
   * edit: remove it.
   */
  insecureHttpConfirmedName?: string;
}

/**
 * A production environment reached over plain `http://` (shown as insecure). A loopback
 * address does not count: what it is sent never leaves the machine.
 */
export function isInsecureProduction(environment: Pick<Environment, 'isProduction' | 'baseUrl'>): boolean {
  if (!environment.isProduction) return false;
  let url: URL;
  try {
    url = new URL(environment.baseUrl);
  } catch {
    return false;
  }
  return url.protocol === 'http:' && !/^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i.test(url.hostname);
}

/** The fields a user edits (the id is assigned by the store). */
export type EnvironmentInput = Omit<Environment, 'id'>;

/** The fields an edit changes; the others keep their values. */
export type EnvironmentPatch = Partial<EnvironmentInput>;

/** `merge` adds and updates by name; `replace` also removes environments the import lacks. */
export type ImportMode = 'merge' | 'replace';

export interface ImportResult {
  added: number;
  updated: number;
  removedIds: string[];
  /** Entries left out (an unreadable CA file, production over http not confirmed here), each with why; the rest were imported. */
  skipped: Array<{ name: string; reason: string }>;
  /**
   * Set when nothing was imported because the list would move current environments to another
   * address or take away their production flag: each with what changes. Importing again with
   * the confirmation applies it.
   */
  unconfirmed?: Array<{ name: string; changes: string[] }>;
}
