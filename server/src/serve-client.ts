// The built single-page app. Text assets are precompressed at build time (brotli and gzip, see
// client/vite.config.ts) and sent in the best encoding the browser accepts, with `Vary:
// Accept-Encoding`; hashed files are cached for a year, index.html is revalidated every time, and so
// are the service worker (/sw.js: a browser must see a new version at once; docs/notifications.md)
// and the web app manifest (sent as application/manifest+json).
import fs from 'node:fs';
import path from 'node:path';
import type { Express, Request, Response } from 'express';
import expressStaticGzip from 'express-static-gzip';

const ENCODINGS = { enableBrotli: true, orderPreference: ['br', 'gzip'] };

/** Files at the top of the build that are never cached without asking: the worker and the manifest. */
const REVALIDATED = new Set(['sw.js', 'manifest.webmanifest']);

/**
 * no-cache for those, and the manifest's own type (mime-types knows it; said here so that a change
 * there cannot break installs). `file` is the one sent: `manifest.webmanifest.br` for brotli.
 */
function topLevelHeaders(res: Response, file: string): void {
  const name = path.basename(file).replace(/\.(br|gz)$/, '');
  if (REVALIDATED.has(name)) res.setHeader('Cache-Control', 'no-cache');
  if (name === 'manifest.webmanifest') res.setHeader('Content-Type', 'application/manifest+json; charset=utf-8');
}

export function serveClient(app: Express, distDir: string): void {
  const indexFile = path.join(distDir, 'index.html');
  app.use(
    '/assets',
    expressStaticGzip(path.join(distDir, 'assets'), {
      ...ENCODINGS,
      index: false,
      serveStatic: { immutable: true, maxAge: '1y', fallthrough: false },
    }),
  );
  app.use(
    expressStaticGzip(distDir, {
      ...ENCODINGS,
      index: false,
      serveStatic: { index: false, setHeaders: (res, file) => topLevelHeaders(res as Response, file) },
    }),
  );
  // Every other page of the app answers index.html. Middleware, not a route: the routes of the app
  // are the API's, each from the shared contract (http/route.ts, assertRoutesInContract).
  const clientPage = /^(?!\/(api|media|socket\.io)\/).*/;
  app.use((req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !clientPage.test(req.path)) return next();
    if (!fs.existsSync(indexFile)) {
      res
        .status(503)
        .type('text/plain')
        .send('The client is not built yet. Run `npm start` (it builds it) or `npm run build`.');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    sendIndex(req, res, distDir);
  });
}

/**
 * index.html in the best precompressed form the browser accepts (every client route answers it).
 * Relative to `root`, so a dist directory under a dot-folder (e.g. .data/...) is not refused.
 */
function sendIndex(req: Request, res: Response, distDir: string): void {
  res.setHeader('Vary', 'Accept-Encoding');
  const encoding = req.acceptsEncodings('br', 'gzip');
  const extension = encoding === 'br' ? '.br' : encoding === 'gzip' ? '.gz' : null;
  if (extension && fs.existsSync(path.join(distDir, `index.html${extension}`))) {
    res.type('html');
    res.sendFile(`index.html${extension}`, { root: distDir, headers: { 'Content-Encoding': encoding as string } });
    return;
  }
  res.sendFile('index.html', { root: distDir });
}
