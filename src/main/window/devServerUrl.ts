/** The variable electron-vite's dev server sets to the renderer's address. */
export const DEV_SERVER_VARIABLE = 'ELECTRON_RENDERER_URL';

/**
 * The renderer's dev-server address, in development only. A packaged app never loads a page
 * named by its environment: that page would get the preload bridge and a place on the IPC
 * allow-list, and with them the stored tokens. Packaged, the variable is ignored (and said so).
 */
export function devServerUrlFor(input: { packaged: boolean; env: Readonly<Record<string, string | undefined>>; warn?: (message: string) => void }): string | undefined {
  const url = input.env[DEV_SERVER_VARIABLE];
  if (!url) return undefined;
  if (input.packaged) {
    input.warn?.(`${DEV_SERVER_VARIABLE} is ignored: a packaged app loads only its own renderer`);
    return undefined;
  }
  return url;
}
