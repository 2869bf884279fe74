import type { SecretBackend } from './secretBackend.js';

/** Secrets for this session only: nothing survives a restart. */
export class MemorySecretBackend implements SecretBackend {
  readonly kind = 'memory' as const;
  private readonly map = new Map<string, string>();
  async get(account: string): Promise<string | null> {
    return this.map.get(account) ?? null;
  }
  async set(account: string, secret: string): Promise<void> {
    this.map.set(account, secret);
  }
  async delete(account: string): Promise<boolean> {
    return this.map.delete(account);
  }
  async accounts(): Promise<string[]> {
    return [...this.map.keys()];
  }
}
