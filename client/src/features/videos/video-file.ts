import { LIMITS } from '@shared/constants';
import { VIDEO_TEXTS } from '@shared/schemas/videos';

/** Containers the server recognises by their first bytes (docs/videos.md), for files with no MIME type. */
const VIDEO_EXTENSIONS = /\.(mp4|m4v|mov|3gp|webm|mkv|avi)$/i;

/**
 * The server accepts up to 30 s plus this rounding grace (server/src/features/videos/video-upload.ts):
 * a phone's "30 second" clip often lasts 30.03 s, and the client must not refuse what the server takes.
 */
export const DURATION_GRACE_SECONDS = 0.5;

/** How long reading a file's metadata may take before we leave the duration check to the server. */
export const METADATA_TIMEOUT_MS = 10_000;

/** Why a file cannot be sent, checked before reading it (SPEC section 5), or null. */
export function checkVideoFile(file: File): string | null {
  const typeOk = file.type ? file.type.startsWith('video/') : VIDEO_EXTENSIONS.test(file.name);
  if (!typeOk) return VIDEO_TEXTS.notAVideo;
  if (file.size > LIMITS.videoMaxBytes) return VIDEO_TEXTS.tooLarge;
  return null;
}

/** The refusal for a duration read from the file, or null (unknown durations are left to the server). */
export function checkVideoDuration(seconds: number | null): string | null {
  if (seconds !== null && seconds > LIMITS.videoMaxSeconds + DURATION_GRACE_SECONDS) return VIDEO_TEXTS.tooLong;
  return null;
}

/**
 * The file's duration in seconds from its metadata, read by a detached video element, or null when
 * the browser cannot read it (a codec it does not play) within the time limit. The object URL is
 * revoked in every case.
 */
export function readVideoDuration(file: Blob, timeoutMs = METADATA_TIMEOUT_MS): Promise<number | null> {
  return new Promise((resolve) => {
    const url = URL.createObjectURL(file);
    const video = document.createElement('video');
    video.preload = 'metadata';
    video.muted = true;
    let finished = false;
    const onMetadata = () => done(Number.isFinite(video.duration) ? video.duration : null);
    const onError = () => done(null);
    const done = (seconds: number | null) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      video.removeEventListener('loadedmetadata', onMetadata);
      video.removeEventListener('error', onError);
      video.removeAttribute('src');
      URL.revokeObjectURL(url);
      resolve(seconds);
    };
    const timer = setTimeout(() => done(null), timeoutMs);
    video.addEventListener('loadedmetadata', onMetadata);
    video.addEventListener('error', onError);
    video.src = url;
  });
}
