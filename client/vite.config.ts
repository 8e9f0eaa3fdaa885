import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { PAGE_TITLE } from '../shared/src/constants.ts';

const clientDir = fileURLToPath(new URL('.', import.meta.url));
const apiTarget = `http://localhost:${process.env.API_PORT ?? 5000}`;

// The page title comes from the shared constants, so index.html never drifts from them.
function pageTitle(): Plugin {
  return {
    name: 'podmatch-page-title',
    transformIndexHtml: (html) => html.replace('%PAGE_TITLE%', PAGE_TITLE),
  };
}

// Run from the repo root: `npx vite build --config client/vite.config.ts`.
export default defineConfig({
  root: clientDir,
  plugins: [react(), tailwindcss(), pageTitle()],
  resolve: {
    alias: {
      '@shared': fileURLToPath(new URL('../shared/src', import.meta.url)),
      '@': fileURLToPath(new URL('./src', import.meta.url)),
    },
  },
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    // Print gzip sizes so the /login budget (150 KB gzip) can be checked on every build.
    reportCompressedSize: true,
  },
  server: {
    proxy: {
      '/api': { target: apiTarget, changeOrigin: true },
      '/media': { target: apiTarget, changeOrigin: true },
      '/socket.io': { target: apiTarget, changeOrigin: true, ws: true },
    },
  },
  preview: {
    proxy: {
      '/api': { target: apiTarget, changeOrigin: true },
      '/media': { target: apiTarget, changeOrigin: true },
      '/socket.io': { target: apiTarget, changeOrigin: true, ws: true },
    },
  },
});
