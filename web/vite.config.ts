import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';

const root = fileURLToPath(new URL('.', import.meta.url));
const outDir = fileURLToPath(new URL('../dist/web', import.meta.url));

/** The driver app's web manifest, linked from web/app/index.html and served at /app/manifest.webmanifest. */
const MANIFEST = {
  id: '/app',
  name: 'Gate — driver app',
  short_name: 'Gate',
  description: 'Appointments, trips and gate tickets, also offline.',
  start_url: '/app',
  scope: '/app',
  display: 'standalone',
  background_color: '#f2f4f7',
  theme_color: '#0f3d5e',
  icons: [
    { src: '/app/icon-192.png', sizes: '192x192', type: 'image/png' },
    { src: '/app/icon-512.png', sizes: '512x512', type: 'image/png' },
    { src: '/app/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
  ],
};

const appManifest: Plugin = {
  name: 'gate:app-manifest',
  generateBundle() {
    this.emitFile({ type: 'asset', fileName: 'app/manifest.webmanifest', source: `${JSON.stringify(MANIFEST, null, 2)}\n` });
  },
};

/**
 * Workbox bundles the service worker through a file it writes to the temporary folder (the TMPDIR it reads when first
 * loaded, during the build) and never removes: each build would leave one behind. It gets a folder of its own for the
 * build, removed once the worker is written (after vite-plugin-pwa's closeBundle).
 */
function workboxScratch(): Plugin {
  let scratch: string | null = null;
  let before: string | undefined;
  return {
    name: 'gate:workbox-scratch',
    buildStart() {
      before = process.env.TMPDIR;
      scratch = mkdtempSync(join(tmpdir(), 'gate-web-build-'));
      process.env.TMPDIR = scratch;
    },
    closeBundle: {
      sequential: true,
      order: 'post',
      handler() {
        if (before === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = before;
        if (scratch) rmSync(scratch, { recursive: true, force: true });
        scratch = null;
      },
    },
  };
}

/**
 * Two pages, /panel and /app, built to static files the service serves itself (dist/web). /app is an installable web
 * app: its manifest and service worker (Workbox, through vite-plugin-pwa) are built into dist/web/app and served at
 * /app/manifest.webmanifest and /app/sw.js; the worker keeps the page and its assets (not the panel's) for offline use.
 */
export default defineConfig({
  root,
  base: '/',
  // web/public/app: the app's icons, copied to dist/web/app.
  publicDir: `${root}public`,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir,
    emptyOutDir: true,
    // Every asset a file of its own: the pages' Content-Security-Policy allows images only from the service and QR codes.
    assetsInlineLimit: 0,
    rolldownOptions: {
      input: { panel: `${root}panel/index.html`, app: `${root}app/index.html` },
    },
  },
  plugins: [
    workboxScratch(),
    VitePWA({
      injectRegister: false,
      // The manifest is the app's own (above): the plugin would link it from every page.
      manifest: false,
      outDir: `${outDir}/app`,
      filename: 'sw.js',
      scope: '/app',
      workbox: {
        globDirectory: outDir,
        globPatterns: ['app/index.html', 'app/*.{png,webmanifest}', 'assets/*.{js,css}'],
        globIgnores: ['assets/panel-*'],
        // The worker lives at /app/sw.js: every precached URL is written from the site's root, the page as /app.
        manifestTransforms: [
          (entries) => ({
            manifest: entries.map((entry) => ({ ...entry, url: entry.url === 'app/index.html' ? '/app' : `/${entry.url}` })),
            warnings: [],
          }),
        ],
        navigateFallback: '/app',
        navigateFallbackAllowlist: [/^\/app$/],
        inlineWorkboxRuntime: true,
        cleanupOutdatedCaches: true,
        clientsClaim: true,
        skipWaiting: true,
      },
    }),
    appManifest,
  ],
});
