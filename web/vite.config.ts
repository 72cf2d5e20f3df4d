import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/** Two pages, /panel and /app, built to static files the service serves itself (dist/web). */
export default defineConfig({
  root,
  base: '/',
  publicDir: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    // Every asset a file of its own: the pages' Content-Security-Policy allows images only from the service and QR codes.
    assetsInlineLimit: 0,
    rolldownOptions: {
      input: { panel: `${root}panel/index.html`, app: `${root}app/index.html` },
    },
  },
});
