/** What closing the window does. */
export type CloseAction = 'hide' | 'quit' | 'close';

/**
 * Closing the window keeps the console running (failures still notify) only where the user can
 * get it back: the macOS dock, or a tray the user said is visible (`closeToTray`). Elsewhere
 * (e.g. GNOME, which shows no tray icons) closing quits. An explicit Quit always closes.
 */
export function decideClose(input: { quitting: boolean; platform: string; closeToTray: boolean }): CloseAction {
  if (input.quitting) return 'close';
  if (input.platform === 'darwin') return 'hide';
  return input.closeToTray ? 'hide' : 'quit';
}

/** Windows always shows tray icons; many Linux desktops do not (GNOME without an extension). */
export function defaultCloseToTray(platform: string): boolean {
  return platform === 'win32' || platform === 'darwin';
}
