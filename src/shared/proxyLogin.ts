/** A proxy asks for credentials (HTTP 407): what the prompt names. */
export interface ProxyLoginRequest {
  /** Identifies the prompt in the answer. */
  id: string;
  /** `host:port` of the proxy. */
  proxy: string;
  /** The proxy's realm, when it gave one. */
  realm?: string;
  /** Basic, Digest, NTLM, Negotiate… */
  scheme: string;
  /** The credentials tried before were refused. */
  retry: boolean;
}

/** The user's answer: the credentials (kept in the keychain when `remember`). */
export interface ProxyLoginAnswer {
  username: string;
  password: string;
  remember: boolean;
}
