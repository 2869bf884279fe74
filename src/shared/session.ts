/** Authentication state of one environment, as main tracks it. */
export type AuthState =
  /** Not started yet / loading config. */
  | 'starting'
  /** No token: the user must log in (first time, or after logout). */
  | 'logged-out'
  /** A usable token (or the host does not require authentication). */
  | 'authenticated'
  /** The token expired or was rejected: a re-login prompt is due. */
  | 'relogin-required'
  /** The host cannot be reached or answers nonsense (sticky message). */
  | 'error';

/** What the renderer may know about a session: never the token nor the password. */
export interface SessionView {
  environmentId: string;
  auth: AuthState;
  username?: string;
  canManage: boolean;
  managementEnabled: boolean;
  requireAuthentication: boolean;
  hubPath?: string;
  eventDebounceMs?: number;
  expiresAt?: string;
  hasRememberedPassword: boolean;
  /** The environment offers single sign-on: the login panel's "Sign in with <displayName>". */
  singleSignOn?: { displayName: string };
  /** False when the environment takes single sign-on only (its password login is off). */
  passwordLoginEnabled?: boolean;
  /** Why the state is what it is (error text, "Token expired", ...). */
  message?: string;
}

/** A password login from the console's login panel. */
export interface PasswordLogin {
  username: string;
  password: string;
  /** Keep the password in the vault to log in again silently when the token expires. */
  remember: boolean;
}
