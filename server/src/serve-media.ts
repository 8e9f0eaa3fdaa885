// Serves the local media store under /media (docs/media.md). Only a path that is a valid media key
// (server/src/core/media/media-store.ts) is looked up: no directory listing, no dotfiles, nothing
// outside the root, and only the image types we write, each with its own fixed content type.
import fs from 'node:fs';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { isMediaKey, type LocalMediaStore } from './core/media';
import { badRequest, notFound } from './http/errors';

const CONTENT_TYPES: Record<string, string> = { webp: 'image/webp', png: 'image/png', jpg: 'image/jpeg' };

/** Names never change content (every new picture gets a new random name): cache for a year. */
export const MEDIA_CACHE_CONTROL = 'public, max-age=31536000, immutable';

export function serveMedia(store: LocalMediaStore): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next(notFound());
    let key: string;
    try {
      key = decodeURIComponent(req.path.slice(1));
    } catch {
      return next(badRequest('Malformed media path.'));
    }
    if (!isMediaKey(key)) return next(notFound('No such file.'));
    const file = store.pathOf(key);
    // O_NOFOLLOW: a symbolic link planted in the store is never followed out of it.
    fs.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW, (openError, fd) => {
      if (openError) return next(notFound('No such file.'));
      fs.fstat(fd, (statError, stat) => {
        if (statError || !stat.isFile()) {
          fs.close(fd, () => undefined);
          return next(notFound('No such file.'));
        }
        res.setHeader('Content-Type', CONTENT_TYPES[key.slice(key.lastIndexOf('.') + 1)] ?? 'application/octet-stream');
        res.setHeader('Content-Length', String(stat.size));
        res.setHeader('Cache-Control', MEDIA_CACHE_CONTROL);
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
        if (req.method === 'HEAD') {
          fs.close(fd, () => undefined);
          res.end();
          return;
        }
        const stream = fs.createReadStream('', { fd });
        stream.on('error', (error) => {
          if (res.headersSent) res.destroy(error);
          else next(error);
        });
        stream.pipe(res);
      });
    });
  };
}
