// Serves the local media store under /media (docs/media.md). Only a path that is a valid media key
// (server/src/core/media/media-store.ts) is looked up: no directory listing, no dotfiles, nothing
// outside the root, and only the types we write, each with its own fixed content type. Uploaded
// originals (`incoming/`) are never served. Videos answer byte ranges (browsers seek and loop with them).
import fs from 'node:fs';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { isPublicMediaKey, type LocalMediaStore } from './core/media';
import { badRequest, notFound } from './http/errors';

const CONTENT_TYPES: Record<string, string> = {
  webp: 'image/webp',
  png: 'image/png',
  jpg: 'image/jpeg',
  mp4: 'video/mp4',
};

/** One `bytes=a-b` range of a file of `size` bytes, or null for a header we do not honour (then 200). */
export function parseByteRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | null {
  const match = header && /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    // A suffix: the last N bytes.
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start > end || start >= size) return 'unsatisfiable';
  return { start, end };
}

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
    if (!isPublicMediaKey(key)) return next(notFound('No such file.'));
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
        res.setHeader('Cache-Control', MEDIA_CACHE_CONTROL);
        res.setHeader('X-Content-Type-Options', 'nosniff');
        res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
        res.setHeader('Accept-Ranges', 'bytes');
        const range = parseByteRange(req.headers.range, stat.size);
        if (range === 'unsatisfiable') {
          fs.close(fd, () => undefined);
          res.status(416).setHeader('Content-Range', `bytes */${stat.size}`);
          res.end();
          return;
        }
        if (range) {
          res.status(206).setHeader('Content-Range', `bytes ${range.start}-${range.end}/${stat.size}`);
        }
        res.setHeader('Content-Length', String(range ? range.end - range.start + 1 : stat.size));
        if (req.method === 'HEAD') {
          fs.close(fd, () => undefined);
          res.end();
          return;
        }
        const stream = fs.createReadStream('', { fd, ...(range ? { start: range.start, end: range.end } : {}) });
        stream.on('error', (error) => {
          if (res.headersSent) res.destroy(error);
          else next(error);
        });
        stream.pipe(res);
      });
    });
  };
}
