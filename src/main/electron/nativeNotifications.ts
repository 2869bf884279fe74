import { Notification } from 'electron';
import type { NotificationTarget } from '../../shared/notifications.js';
import type { FailureNotification, NotificationSink } from '../notifications/FailureNotifier.js';

/**
 * FailureNotifier → Electron Notification; a click opens the task or the inbox. Each shown
 * notification stays referenced until it is closed or clicked: a collected Notification
 * object loses its click handler while the notification is still on screen.
 */
export function createNativeNotificationSink(onClick: (target: NotificationTarget) => void, iconPath?: string): NotificationSink & { readonly showing: ReadonlySet<Notification> } {
  const showing = new Set<Notification>();
  return {
    showing,
    show(n: FailureNotification) {
      if (!Notification.isSupported()) return;
      const notification = new Notification({
        title: n.title,
        body: n.body,
        urgency: n.isProduction ? 'critical' : 'normal',
        ...(iconPath ? { icon: iconPath } : {}),
      });
      notification.on('click', () => {
        showing.delete(notification);
        onClick(n.target);
      });
      notification.on('close', () => showing.delete(notification));
      notification.on('failed', () => showing.delete(notification));
      showing.add(notification);
      notification.show();
    },
  };
}
