// Uploaded video intros (docs/video.md): streamed to a temporary file (never held in memory), at
// most 50 MB, then checked by content (magic bytes, then ffprobe with a time limit, 30 s at most)
// before anything is stored.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LIMITS, VIDEO_TEXTS } from '@shared/index';
import type { RequestHandler } from 'express';
import multer from 'multer';
import { probeVideo, sniffVideoContainer, VideoProbeError } from '../../core/media/ffmpeg';
import { createSlots } from '../../core/slots';
import { badRequest, HttpError } from '../../http/errors';

/** Where uploads are written while they arrive (a private temp dir of this server process). */
export const UPLOAD_TEMP_DIR = path.join(os.tmpdir(), 'podmatch-video-uploads');
/** ffprobe runs per upload: at most this many at once per server, the rest wait their turn. */
const withProbeSlot = createSlots(4);
/** Containers round durations: a 30.0 s clip may say 30.04 s. */
export const DURATION_GRACE_SECONDS = 0.5;

/** Reads the `video` field of a multipart request to a temp file (`req.file.path`); 413 over 50 MB. */
export function videoFileUpload(): RequestHandler {
  const upload = multer({
    storage: multer.diskStorage({
      destination: (_req, _file, done) => {
        fs.mkdir(UPLOAD_TEMP_DIR, { recursive: true }).then(
          () => done(null, UPLOAD_TEMP_DIR),
          (error: Error) => done(error, UPLOAD_TEMP_DIR),
        );
      },
    }),
    limits: { fileSize: LIMITS.videoMaxBytes, files: 1, fields: 5, parts: 10 },
  }).single('video');
  return (req, res, next) =>
    upload(req, res, (error: unknown) => {
      if (!error) return next();
      // multer deletes a partly written file itself when it stops an upload.
      if (error instanceof multer.MulterError) {
        if (error.code === 'LIMIT_FILE_SIZE')
          return next(new HttpError(413, 'payload_too_large', VIDEO_TEXTS.tooLarge));
        return next(new HttpError(400, 'bad_upload', `Upload refused: ${error.message}.`));
      }
      next(badRequest('Send the video as multipart/form-data.'));
    });
}

/** The container's file extension once the file is known to be a real video of at most 30 s. */
export async function checkUploadedVideo(file: string): Promise<{ extension: string; durationSeconds: number }> {
  const handle = await fs.open(file, 'r');
  let head: Buffer;
  try {
    const buffer = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    head = buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
  const container = sniffVideoContainer(head);
  if (!container) throw new HttpError(415, 'unsupported_media_type', VIDEO_TEXTS.notAVideo);
  let probe: Awaited<ReturnType<typeof probeVideo>>;
  try {
    probe = await withProbeSlot(() => probeVideo(file, { timeoutMs: 10_000 }));
  } catch (error) {
    if (!(error instanceof VideoProbeError)) throw error;
    if (error.reason === 'no_video') throw new HttpError(415, 'unsupported_media_type', VIDEO_TEXTS.noVideoStream);
    throw badRequest(VIDEO_TEXTS.unreadable);
  }
  if (!(probe.durationSeconds > 0)) throw badRequest(VIDEO_TEXTS.unreadable);
  if (probe.durationSeconds > LIMITS.videoMaxSeconds + DURATION_GRACE_SECONDS) throw badRequest(VIDEO_TEXTS.tooLong);
  return { extension: container, durationSeconds: probe.durationSeconds };
}

/** Deletes upload temp files older than an hour (a server killed mid-upload leaves them). */
export async function sweepStaleUploads(now = Date.now()): Promise<void> {
  const names = await fs.readdir(UPLOAD_TEMP_DIR).catch(() => [] as string[]);
  for (const name of names) {
    const file = path.join(UPLOAD_TEMP_DIR, name);
    const stat = await fs.stat(file).catch(() => null);
    if (stat && now - stat.mtimeMs > 3_600_000) await fs.rm(file, { force: true });
  }
}
