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
}
