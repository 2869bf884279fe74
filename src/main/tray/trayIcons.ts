export interface TrayIconPaths {
  normal: string;
  unread: string;
  warning: string;
}

/**
 * The tray icon files for a platform, under the app's build folder. macOS gets template
 * images (black and alpha, name ending in `Template`, with an `@2x` twin) that the menu bar
 * draws in its own colour in light and dark mode; the unread count is the tray title there.
 * Elsewhere the coloured 32 px icons.
 */
export function trayIconPaths(platform: NodeJS.Platform, asset: (relativePath: string) => string): TrayIconPaths {
  const file = (name: string) => (platform === 'darwin' ? asset(`tray/macos/${name}Template.png`) : asset(`tray/${name}.png`));
  return { normal: file('tray'), unread: file('tray-unread'), warning: file('tray-warning') };
}
