// Serves the media store under /media (docs/media.md), from the local directory or from the S3
// bucket, with one set of rules: only a path that is a valid media key (server/src/core/media/media-store.ts)
// is looked up: no directory listing, no dotfiles, nothing outside the root, and only the types we
// write, each with its own fixed content type. Uploaded originals (`incoming/`) are never served.
// Videos answer byte ranges (browsers seek and loop with them).
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Redis } from 'ioredis';
import {
  isPublicMediaKey,
  type LocalMediaStore,
  MEDIA_CACHE_CONTROL,
  mediaContentType,
  S3MediaStore,
} from './core/media';
import { isWithheld } from './core/moderation/withheld-media';
import { badRequest, notFound } from './http/errors';

export { MEDIA_CACHE_CONTROL } from './core/media';

/** A `bytes=` range as written: from `first` (to `last`, or the end), or the last `suffix` bytes. */
export type ByteRangeSpec = { first: number; last: number | null } | { suffix: number };
type ByteRange = { start: number; end: number };

/** The one `bytes=a-b` range of a Range header, or null for a header we do not honour (then 200). */
export function readRangeHeader(header: string | undefined): ByteRangeSpec | null {
  const match = header && /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  // Beyond 2^53 every size is smaller anyway; clamped so the number prints as digits.
  const num = (digits: string) => Math.min(Number(digits), Number.MAX_SAFE_INTEGER);
  if (match[1] === '') return { suffix: num(match[2] as string) };
  return { first: num(match[1] as string), last: match[2] === '' ? null : num(match[2] as string) };
}

/** The bytes a range names in a file of `size` bytes. */
export function resolveByteRange(spec: ByteRangeSpec, size: number): ByteRange | 'unsatisfiable' {
  let start: number;
  let end: number;
  if ('suffix' in spec) {
    start = Math.max(0, size - spec.suffix);
    end = size - 1;
  } else {
    start = spec.first;
    end = spec.last === null ? size - 1 : Math.min(spec.last, size - 1);
  }
  if (start > end || start >= size) return 'unsatisfiable';
  return { start, end };
}

/** One `bytes=a-b` range of a file of `size` bytes, or null for a header we do not honour (then 200). */
export function parseByteRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | null {
  const spec = readRangeHeader(header);
  return spec ? resolveByteRange(spec, size) : null;
}

/** The key a /media request names, or the error to answer: 400 for a malformed escape, else 404. */
function publicKeyOf(req: Request): string | Error {
  if (req.method !== 'GET' && req.method !== 'HEAD') return notFound();
  let key: string;
  try {
    key = decodeURIComponent(req.path.slice(1));
  } catch {
    return badRequest('Malformed media path.');
  }
  return isPublicMediaKey(key) ? key : notFound('No such file.');
}

/** Headers of every answer about a file; the year-long cache only on the bytes themselves. */
function sendHead(res: Response, key: string, size: number, range: ByteRange | 'unsatisfiable' | null): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  res.setHeader('Accept-Ranges', 'bytes');
  if (range === 'unsatisfiable') {
    res.status(416).setHeader('Content-Range', `bytes */${size}`);
    return;
  }
  res.setHeader('Content-Type', mediaContentType(key));
  res.setHeader('Cache-Control', MEDIA_CACHE_CONTROL);
  if (range) res.status(206).setHeader('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
  res.setHeader('Content-Length', String(range ? range.end - range.start + 1 : size));
}

export function serveMedia(store: LocalMediaStore | S3MediaStore, redis?: Redis): RequestHandler {
  const serve = store instanceof S3MediaStore ? serveFromBucket(store) : serveFromDirectory(store);
  if (!redis) return serve;
  // A banned person's files are withheld (core/moderation/withheld-media.ts).
  return (req: Request, res: Response, next: NextFunction) => {
    const key = publicKeyOf(req);
    if (key instanceof Error) return next(key);
    void isWithheld(redis, key).then((withheld) =>
      withheld ? next(notFound('No such file.')) : serve(req, res, next),
    );
  };
}

function serveFromDirectory(store: LocalMediaStore): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const key = publicKeyOf(req);
    if (key instanceof Error) return next(key);
    const file = store.pathOf(key);
    // O_NOFOLLOW: a symbolic link planted in the store is never followed out of it.
    fs.open(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW, (openError, fd) => {
      if (openError) return next(notFound('No such file.'));
      fs.fstat(fd, (statError, stat) => {
        if (statError || !stat.isFile()) {
          fs.close(fd, () => undefined);
          return next(notFound('No such file.'));
        }
        const range = parseByteRange(req.headers.range, stat.size);
        sendHead(res, key, stat.size, range);
        if (req.method === 'HEAD' || range === 'unsatisfiable') {
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

/** The Range header sent on to GetObject: `bytes=a-b` or `bytes=a-`, which every S3 store reads alike. */
const rangeHeaderOf = (spec: { first: number; last: number | null }) => `bytes=${spec.first}-${spec.last ?? ''}`;

function serveFromBucket(store: S3MediaStore): RequestHandler {
  return async (req: Request, res: Response, next: NextFunction) => {
    const key = publicKeyOf(req);
    if (key instanceof Error) return next(key);
    // A browser that goes away (a video skipped) stops the bucket request too.
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    try {
      let spec = readRangeHeader(req.headers.range);
      // HEAD, suffix ranges (`bytes=-500`: s3rver, for one, reads them as `bytes=0-500`) and ranges
      // no size satisfies (`bytes=5-2`) are decided here from the object's size, as the local driver does.
      const needsSize =
        req.method === 'HEAD' ||
        (spec && ('suffix' in spec || resolveByteRange(spec, Number.MAX_SAFE_INTEGER) === 'unsatisfiable'));
      if (needsSize) {
        const size = await store.sizeOf(key, abort.signal);
        if (size === null) return next(notFound('No such file.'));
        const range = spec ? resolveByteRange(spec, size) : null;
        if (req.method === 'HEAD' || range === 'unsatisfiable') {
          sendHead(res, key, size, range);
          res.end();
          return;
        }
        spec = range && { first: range.start, last: range.end };
      }
      const forwarded = spec && !('suffix' in spec) ? rangeHeaderOf(spec) : undefined;
      const object = await store.read(key, forwarded, abort.signal);
      if (object.status === 'missing') return next(notFound('No such file.'));
      if (object.status === 'unsatisfiable') {
        // Past the end: the 416 names the size, which only a HEAD tells.
        const size = await store.sizeOf(key, abort.signal);
        if (size === null) return next(notFound('No such file.'));
        sendHead(res, key, size, 'unsatisfiable');
        res.end();
        return;
      }
      sendHead(res, key, object.size, object.range);
      await pipeline(object.body, res);
    } catch (error) {
      if (abort.signal.aborted) return;
      if (res.headersSent) res.destroy(error as Error);
      else next(error);
    }
  };
}
