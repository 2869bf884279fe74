import { KEYCHAIN_SERVICE, type KeytarLike, type SecretBackend } from './secretBackend.js';

/** The OS keychain through keytar (service `svc-monitor`, one account per environment). */
export class KeytarSecretBackend implements SecretBackend {
  readonly kind = 'keychain' as const;
  constructor(private readonly keytar: KeytarLike, private readonly service = KEYCHAIN_SERVICE) {}

  /** Resolves when a keychain answers (on Linux: a Secret Service on D-Bus), else rejects. */
  async probe(): Promise<void> {
    await this.keytar.findCredentials(this.service);
  }
  get(account: string): Promise<string | null> {
    return this.keytar.getPassword(this.service, account);
  }
  set(account: string, secret: string): Promise<void> {
    return this.keytar.setPassword(this.service, account, secret);
  }
  delete(account: string): Promise<boolean> {
    return this.keytar.deletePassword(this.service, account);
  }
  async accounts(): Promise<string[]> {
    return (await this.keytar.findCredentials(this.service)).map((c) => c.account);
  }
}
