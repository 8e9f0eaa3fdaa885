// Temporary files of uploads streamed to disk (docs/videos.md, "Uploads"). A file belongs to its
// request: it is private from its first byte (0600 in a 0700 directory of ours) and removed once the
// response has closed, whatever closed it (the handler's answer, a refusal by a later check such as
// body validation, an error, the client going away). A periodic sweep removes anything older than
// an hour, e.g. what a killed server left.
import { randomBytes } from 'node:crypto';
import { createWriteStream, type WriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import type multer from 'multer';
import type { Logger } from '../core/logger';

/** Older than this, a temporary file belongs to no request any more (Node ends a request after 5 minutes). */
export const UPLOAD_TEMP_MAX_AGE_MS = 60 * 60_000;
/** How often the sweep runs. */
export const UPLOAD_SWEEP_EVERY_MS = 10 * 60_000;

/**
 * Makes `dir` a directory only this user can enter: created 0700, and refused when it is a symbolic
 * link or someone else's (a shared /tmp lets anyone create the name first); an older one of ours
 * with wider permissions is tightened.
 */
export async function preparePrivateDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  const stat = await fs.lstat(dir);
  if (!stat.isDirectory()) throw new Error(`The upload directory ${dir} is not a directory.`);
  if (process.getuid && stat.uid !== process.getuid()) {
    throw new Error(`The upload directory ${dir} belongs to another user.`);
  }
  if ((stat.mode & 0o077) !== 0) await fs.chmod(dir, 0o700);
}

interface RequestFiles {
  /** The response has closed: no new file may be started for this request. */
  closed: boolean;
  files: Map<string, WriteStream>;
}
const requestFiles = new WeakMap<Request, RequestFiles>();

/** Closes a file's stream (waiting for a pending open) and deletes it; a file already moved is fine. */
async function discard(file: string, stream: WriteStream): Promise<void> {
  if (!stream.closed) {
    await new Promise<void>((resolve) => {
      stream.once('close', () => resolve());
      stream.destroy();
    });
  }
  await fs.rm(file, { force: true }).catch(() => undefined);
}

/** Every temporary file written for `req` is deleted once `res` has closed. */
export function removeTempFilesWhenDone(req: Request, res: Response): void {
  const state: RequestFiles = { closed: false, files: new Map() };
  requestFiles.set(req, state);
  res.once('close', () => {
    state.closed = true;
    for (const [file, stream] of state.files) void discard(file, stream);
    state.files.clear();
  });
}

/**
 * A multer storage engine writing each file to a new private file under `dir` (random name, created
 * exclusively with mode 0600). Only for requests given to removeTempFilesWhenDone first.
 */
export function privateTempStorage(dir: string): multer.StorageEngine {
  return {
    _handleFile(req, file, done) {
      preparePrivateDir(dir).then(() => {
        const state = requestFiles.get(req as Request);
        if (!state || state.closed) return done(new Error('The request ended before its file was written.'));
        const target = path.join(dir, randomBytes(16).toString('hex'));
        const out = createWriteStream(target, { flags: 'wx', mode: 0o600 });
        state.files.set(target, out);
        pipeline(file.stream, out).then(
          () => done(null, { path: target, size: out.bytesWritten }),
          (error: Error) => {
            state.files.delete(target);
            void discard(target, out).finally(() => done(error));
          },
        );
      }, done);
    },
    _removeFile(req, file, done) {
      const state = requestFiles.get(req as Request);
      const stream = state?.files.get(file.path);
      state?.files.delete(file.path);
      const removed = stream ? discard(file.path, stream) : fs.rm(file.path, { force: true });
      removed.then(() => done(null), done);
    },
  };
}

/** Deletes what under `dir` was last written more than `maxAgeMs` before `now`; answers how many. */
export async function sweepStaleTempFiles(dir: string, now: number, maxAgeMs = UPLOAD_TEMP_MAX_AGE_MS) {
  let removed = 0;
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    const entry = path.join(dir, name);
    const stat = await fs.lstat(entry).catch(() => null);
    if (stat && now - stat.mtimeMs > maxAgeMs) {
      await fs.rm(entry, { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}

/** Sweeps `dir` now and every `everyMs` until stopped (never two sweeps at once). */
export function startTempSweeper(
  dir: string,
  options: { logger: Logger; now?: () => number; everyMs?: number },
): { stop(): void } {
  const now = options.now ?? Date.now;
  let running = false;
  const sweep = () => {
    if (running) return;
    running = true;
    sweepStaleTempFiles(dir, now())
      .then((removed) => {
        if (removed > 0) options.logger.info(`removed ${removed} stale upload file(s) from ${dir}`);
      })
      .catch((error: Error) => options.logger.warn(`sweeping ${dir} failed: ${error.message}`))
      .finally(() => {
        running = false;
      });
  };
  sweep();
  const timer = setInterval(sweep, options.everyMs ?? UPLOAD_SWEEP_EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
