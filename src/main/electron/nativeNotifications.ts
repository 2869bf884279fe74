import { Notification } from 'electron';
import type { FailureNotification, NotificationSink, NotificationTarget } from '../notifications/FailureNotifier.js';

/** FailureNotifier → Electron Notification; a click opens the task or the inbox. */
export function createNativeNotificationSink(onClick: (target: NotificationTarget) => void, iconPath?: string): NotificationSink {
  return {
    show(n: FailureNotification) {
      if (!Notification.isSupported()) return;
      const notification = new Notification({
        title: n.title,
        body: n.body,
        urgency: n.isProduction ? 'critical' : 'normal',
        ...(iconPath ? { icon: iconPath } : {}),
      });
      notification.on('click', () => onClick(n.target));
      notification.show();
    },
  };
}
