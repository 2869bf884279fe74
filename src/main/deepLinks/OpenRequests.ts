import { ConsoleError } from '../ConsoleError.js';
import type { EnvironmentStore } from '../environments/EnvironmentStore.js';
import type { Environment } from '../../shared/environment.js';
import type { NotificationTarget } from '../../shared/notifications.js';
import type { RendererEvent } from '../../shared/rendererEvents.js';
import { DeepLinkError, formatTargetLink, parseDeepLink } from './parseDeepLink.js';

/**
 * What the window is asked to open (a notification clicked, a `svc-monitor:` link), kept until
 * a renderer that was not listening yet takes it; and the links that open a target.
 */
export class OpenRequests {
  private pending: NotificationTarget | undefined;

  constructor(
    private readonly store: Pick<EnvironmentStore, 'find' | 'get'>,
    private readonly emit: (event: RendererEvent) => void,
  ) {}

  /** A notification was clicked: tell the renderer what to open (reading is the user's action). */
  open(target: NotificationTarget): void {
    this.pending = target;
    this.emit({ type: 'open', target });
  }

  /**
   * What was last asked to open since the page (re)started loading: a renderer that was not
   * listening yet takes it once it has started, instead of its remembered environment.
   */
  takePending(): NotificationTarget | undefined {
    const target = this.pending;
    this.pending = undefined;
    return target;
  }

  /** The window's page starts loading (first load, reload after a crash): nothing is pending for it yet. */
  rendererLoading(): void {
    this.pending = undefined;
  }

  /** `svc-monitor://<environment>/tasks/<id>` or `/<page>?<filters>` → an `open` event for the renderer. */
  openDeepLink(url: string): NotificationTarget {
    const { target } = this.resolveDeepLink(url);
    this.open(target);
    return target;
  }

  /** What a deep link would open, and in which environment (nothing is opened). */
  resolveDeepLink(url: string): { target: NotificationTarget; environment: Environment } {
    let link;
    try {
      link = parseDeepLink(url);
    } catch (err) {
      throw new ConsoleError('invalid-arguments', (err as DeepLinkError).message);
    }
    const env = this.store.find(link.environment);
    if (!env) throw new ConsoleError('not-found', `deep link: no environment named "${link.environment}"`);
    const target: NotificationTarget =
      'taskId' in link
        ? { kind: 'task', environmentId: env.id, taskId: link.taskId }
        : 'inbox' in link
          ? { kind: 'inbox', environmentId: env.id, ...link.inbox }
          : { kind: 'route', environmentId: env.id, path: link.path };
    return { target, environment: env };
  }

  /** The `svc-monitor:` link that opens `target` (undefined for a target without an environment). */
  linkFor(target: NotificationTarget): string | undefined {
    const env = 'environmentId' in target && target.environmentId ? this.store.get(target.environmentId) : undefined;
    return env ? formatTargetLink(env.name, target) : undefined;
  }
}
