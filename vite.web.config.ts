import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import vue from '@vitejs/plugin-vue';

// Web build of the dashboard: served by the server package at /svc-monitoring (server/web).
const root = fileURLToPath(new URL('./src/renderer', import.meta.url));
const outDir = fileURLToPath(new URL('./server/web', import.meta.url));

export default defineConfig({
  root,
  base: '/svc-monitoring/',
  plugins: [vue()],
  build: {
    outDir,
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    target: 'es2022',
    reportCompressedSize: false,
    chunkSizeWarningLimit: 800,
  },
});
