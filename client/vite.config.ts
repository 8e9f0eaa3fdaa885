import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { VitePWA } from 'vite-plugin-pwa';
import { APP_NAME, APP_TAGLINE, PAGE_TITLE } from '../shared/src/constants.ts';

const clientDir = fileURLToPath(new URL('.', import.meta.url));
const apiTarget = `http://localhost:${process.env.API_PORT ?? 5000}`;

// The page title comes from the shared constants, so index.html never drifts from them.
function pageTitle(): Plugin {
  return {
    name: 'podmatch-page-title',
    transformIndexHtml: (html) => html.replace('%PAGE_TITLE%', PAGE_TITLE),
  };
}

/** The screen most first visits open (every signed-out route leads to it), as a module id suffix. */
const FIRST_VISIT_SCREEN = '/src/app/routes/login-route.tsx';

// A first visit would otherwise fetch the login screen's chunk only once the entry has run (one more
// round trip before anything is drawn); a modulepreload link fetches it alongside the entry. For a
// returning visitor it is a cache hit, and nothing runs until the route needs it.
function preloadFirstVisitScreen(): Plugin {
  return {
    name: 'podmatch-preload-first-visit-screen',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler: (_html, ctx) => {
        const chunks = Object.values(ctx.bundle ?? {}).filter((output) => output.type === 'chunk');
        const screen = chunks.find((chunk) => chunk.facadeModuleId?.endsWith(FIRST_VISIT_SCREEN));
        const entry = chunks.find((chunk) => chunk.isEntry);
        if (!screen || !entry) return [];
        const loaded = new Set([entry.fileName, ...entry.imports]);
        const files = [screen.fileName, ...screen.imports].filter((file) => !loaded.has(file));
        return files.map((file) => ({
          tag: 'link',
          attrs: { rel: 'modulepreload', crossorigin: '', href: `/${file}` },
          injectTo: 'head' as const,
        }));
      },
    },
  };
}

/** Text files worth compressing, and the size below which compression gains nothing. */
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|xml|webmanifest)$/;
const MIN_COMPRESS_BYTES = 512;

// Writes a .br and a .gz next to every text file of the build, once, at maximum compression; the
// server sends whichever the browser accepts (server/src/serve-client.ts).
function precompress(): Plugin {
  let outDir = '';
  return {
    name: 'podmatch-precompress',
    apply: 'build',
    configResolved: (config) => {
      outDir = config.build.outDir;
    },
    closeBundle() {
      const walk = (dir: string): string[] =>
        fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
          const full = path.join(dir, entry.name);
          return entry.isDirectory() ? walk(full) : [full];
        });
      for (const file of walk(outDir)) {
        if (!COMPRESSIBLE.test(file)) continue;
        const content = fs.readFileSync(file);
        if (content.length < MIN_COMPRESS_BYTES) continue;
        fs.writeFileSync(
          `${file}.br`,
          brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } }),
        );
        fs.writeFileSync(`${file}.gz`, gzipSync(content, { level: 9 }));
      }
    },
  };
}

/** The page's ground (--color-ink in src/index.css): the splash screen and the system bars. */
const INK = '#0b0b12';

// Installable app and service worker (docs/notifications.md). The worker (src/service-worker/sw.ts)
// is built by the plugin after the app, with the app's file list injected for precaching; the app
// registers it itself after load (src/lib/service-worker.ts). The icons are committed PNGs
// (scripts/make-app-icons.ts). Development (`vite`) has no worker.
function installableApp() {
  return VitePWA({
    strategies: 'injectManifest',
    srcDir: 'src/service-worker',
    filename: 'sw.ts',
    injectRegister: false,
    manifestFilename: 'manifest.webmanifest',
    // The icons are in the precache list already (globPatterns), the manifest is added by the plugin.
    includeManifestIcons: false,
    manifest: {
      id: '/',
      name: APP_NAME,
      short_name: APP_NAME,
      description: APP_TAGLINE,
      start_url: '/',
      scope: '/',
      display: 'standalone',
      background_color: INK,
      theme_color: INK,
      categories: ['social', 'entertainment'],
      icons: [
        { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
        { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
        { src: '/icons/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
      ],
    },
    injectManifest: {
      // The app shell: the page, the hashed code and styles, the icons (the plugin adds the
      // manifest). Not the .br/.gz copies (the browser decodes what the server sends), not media,
      // never the API.
      globPatterns: ['**/*.{js,css,html,svg,png}'],
      globIgnores: ['**/*.br', '**/*.gz'],
    },
  });
}

// Run from the repo root: `npx vite build --config client/vite.config.ts`.
export default defineConfig({
  root: clientDir,
  plugins: [react(), tailwindcss(), pageTitle(), preloadFirstVisitScreen(), installableApp(), precompress()],
  resolve: {
    alias: {
      '@shared': fileURLToPath(new URL('../shared/src', import.meta.url)),
      '@': fileURLToPath(new URL('./src', import.meta.url)),
    },
  },
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    // Print gzip sizes so the /login budget can be checked on every build.
    reportCompressedSize: true,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            // The libraries every screen runs, apart from the app's own code: a deploy that changes
            // only the app leaves this chunk in returning visitors' caches.
            {
              name: 'react-vendor',
              test: /node_modules[\\/](react|react-dom|scheduler|react-router|react-router-dom|@tanstack[\\/]query-core|@tanstack[\\/]react-query|jotai)[\\/]/,
            },
          ],
        },
      },
    },
  },
  server: {
    proxy: {
      // The browser's Host is kept: passkeys check that the page's origin is the host asked (docs/auth.md).
      '/api': { target: apiTarget },
      '/dev': { target: apiTarget },
      '/media': { target: apiTarget, changeOrigin: true },
      '/socket.io': { target: apiTarget, changeOrigin: true, ws: true },
    },
  },
  preview: {
    proxy: {
      // The browser's Host is kept: passkeys check that the page's origin is the host asked (docs/auth.md).
      '/api': { target: apiTarget },
      '/dev': { target: apiTarget },
      '/media': { target: apiTarget, changeOrigin: true },
      '/socket.io': { target: apiTarget, changeOrigin: true, ws: true },
    },
  },
});
