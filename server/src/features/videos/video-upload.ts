// Uploaded video intros (docs/videos.md): streamed to a private temporary file (never held in
// memory), at most 50 MB, then checked by content (magic bytes, then ffprobe with a time limit, 30 s
// at most) before anything is stored.
import fs from 'node:fs/promises';
import { LIMITS, VIDEO_TEXTS } from '@shared/index';
import type { RequestHandler } from 'express';
import { probeVideo, sniffVideoContainer, VideoProbeError } from '../../core/media/ffmpeg';
import { createSlots } from '../../core/slots';
import { badRequest, HttpError } from '../../http/errors';
import { singleFileToDisk } from '../../http/multipart';

/** ffprobe runs per upload: at most this many at once per server, the rest wait their turn. */
const withProbeSlot = createSlots(4);
/** Containers round durations: a 30.0 s clip may say 30.04 s. */
export const DURATION_GRACE_SECONDS = 0.5;

/**
 * Reads the `video` field of a multipart request to a private temp file under `dir` (`req.file.path`),
 * deleted once the response has closed, whatever answered it (http/multipart.ts); 413 over 50 MB.
 */
export const videoFileUpload = (dir: string): RequestHandler =>
  singleFileToDisk('video', dir, LIMITS.videoMaxBytes, VIDEO_TEXTS.tooLarge);

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
