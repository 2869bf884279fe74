import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import vue from '@vitejs/plugin-vue';

/**
 * The desktop console: main (ESM, Node services + Electron wiring), preload (CommonJS: a
 * sandboxed preload cannot be an ES module) and the Vue renderer in desktop
 * mode: src/renderer/desktop/index.html mounts the desktop shell, which mounts the shared
 * dashboard per environment over the bridge-backed platform.
 */
export default defineConfig({
  main: {
    build: {
      // keytar is native and @microsoft/signalr loads its Node transports (ws, eventsource,
      // fetch-cookie, tough-cookie, node-fetch, abort-controller) with a require hidden from
      // bundlers: both stay packages (production dependencies, packed into app.asar); so does
      // ws, whose optional native helpers a bundle would ask for by name; and electron-updater,
      // which picks its platform updater and Electron's modules with lazy requires. The rest is bundled.
      externalizeDeps: { include: ['keytar', '@microsoft/signalr', 'ws', 'electron-updater'] },
      rolldownOptions: {
        input: { index: resolve(import.meta.dirname, 'src/main/index.ts') },
        external: ['electron', 'keytar', '@microsoft/signalr', 'ws', 'electron-updater'],
      },
    },
  },
  preload: {
    build: {
      externalizeDeps: false,
      rolldownOptions: {
        input: { index: resolve(import.meta.dirname, 'src/preload/index.ts') },
        external: ['electron'],
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(import.meta.dirname, 'src/renderer/desktop'),
    base: './',
    plugins: [vue()],
    build: {
      rolldownOptions: { input: { index: resolve(import.meta.dirname, 'src/renderer/desktop/index.html') } },
    },
  },
});
