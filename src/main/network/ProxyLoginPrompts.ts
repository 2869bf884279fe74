import { ConsoleError } from '../ConsoleError.js';
import type { ProxyLoginAnswer, ProxyLoginRequest } from '../../shared/proxyLogin.js';
import type { RendererEvent } from '../../shared/rendererEvents.js';

/** The proxy credential prompts open in the window, each waiting for the user's answer. */
export class ProxyLoginPrompts {
  private readonly open = new Map<string, (answer: ProxyLoginAnswer | null) => void>();

  constructor(private readonly emit: (event: RendererEvent) => void) {}

  /** Shows the prompt; resolves with the user's answer (null: cancelled, or the app quits). */
  ask(request: ProxyLoginRequest): Promise<ProxyLoginAnswer | null> {
    return new Promise((resolve) => {
      this.open.set(request.id, resolve);
      this.emit({ type: 'proxyLogin', request });
    });
  }

  /** The user answered a prompt (null: cancelled). */
  answer(id: string, answer: ProxyLoginAnswer | null): void {
    const resolve = this.open.get(id);
    if (!resolve) throw new ConsoleError('not-found', `No proxy login prompt "${id}" is open`);
    this.open.delete(id);
    resolve(answer);
  }

  /** Every open prompt is answered "cancelled" (quit). */
  cancelAll(): void {
    for (const resolve of this.open.values()) resolve(null);
    this.open.clear();
  }
}
