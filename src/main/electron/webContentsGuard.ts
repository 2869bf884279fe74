import type { App, WebContents } from 'electron';
import { decideNavigation } from '../window/navigationPolicy.js';

/**
 * Every web contents the app ever makes (the window, a devtools page, anything a future change
 * opens) gets the same floor, set before it can load: no webview, no new window, no navigation
 * away from the app's origins. The main window then sets its own, finer rules on top (links to
 * the environments' hosts open in the system browser); a contents without rules of its own keeps
 * this floor.
 */
export function guardEveryWebContents(app: Pick<App, 'on'>, appOrigins: readonly string[]): void {
  app.on('web-contents-created', (_event, contents: WebContents) => {
    contents.on('will-attach-webview', (event) => event.preventDefault());
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    const stayInApp = (event: { preventDefault(): void }, url: string) => {
      if (decideNavigation(url, appOrigins).action !== 'allow') event.preventDefault();
    };
    contents.on('will-navigate', stayInApp);
    contents.on('will-redirect', stayInApp);
  });
}
