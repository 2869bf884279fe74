import { Notification } from 'electron';
import type { NotificationTarget } from '../../shared/notifications.js';
import type { FailureNotification, NotificationSink } from '../notifications/FailureNotifier.js';
import { windowsToastXml } from '../notifications/windowsToast.js';

/**
 * FailureNotifier → Electron Notification; a click opens the task or the inbox. Each shown
 * notification stays referenced until it is closed or clicked: a collected Notification
 * object loses its click handler while the notification is still on screen. On Windows the
 * toast carries the `svc-monitor:` link of its target (`linkFor`) and opens it itself.
 */
export function createNativeNotificationSink(
  onClick: (target: NotificationTarget) => void,
  iconPath?: string,
  linkFor: (target: NotificationTarget) => string | undefined = () => undefined,
): NotificationSink & { readonly showing: ReadonlySet<Notification> } {
  const showing = new Set<Notification>();
  return {
    showing,
    show(n: FailureNotification) {
      if (!Notification.isSupported()) return;
      const link = process.platform === 'win32' ? linkFor(n.target) : undefined;
      const notification = new Notification({
        title: n.title,
        body: n.body,
        urgency: n.isProduction ? 'critical' : 'normal',
        ...(iconPath ? { icon: iconPath } : {}),
        ...(link ? { toastXml: windowsToastXml(n, link) } : {}),
      });
      notification.on('click', () => {
        showing.delete(notification);
        // A toast with a link opens it through the protocol; handling the click too would open it twice.
        if (!link) onClick(n.target);
      });
      notification.on('close', () => showing.delete(notification));
      notification.on('failed', () => showing.delete(notification));
      showing.add(notification);
      notification.show();
    },
  };
}
