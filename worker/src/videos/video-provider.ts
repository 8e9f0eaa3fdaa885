// The seam between the video.render job and whatever makes the video (docs/videos.md): the local
// ffmpeg renderer by default, or an external AI video service over HTTP (VIDEO_PROVIDER=http).
import type { Intent, IntroTaglineKind } from '@shared/index';

/** Everything an intro shows, already loaded by the job (no database or network access needed). */
export interface IntroInput {
  intent: Intent;
  displayName: string;
  tagline: string;
  taglineKind: IntroTaglineKind;
  /** Fixed at 95 for the AI video (SPEC section 9); sent to an external provider, never drawn by the
   * local renderer: the feed card shows the real one over the video. */
  matchPercentage: number;
  /** The profile picture's bytes (WebP, PNG or JPEG), or null for a letter placeholder. */
  picture: Buffer | null;
  /** At most 5 visible podcasts, most listened first; artwork null means a letter placeholder. */
  podcasts: { name: string; creator: string | null; artwork: Buffer | null }[];
  /** The narration's script (spoken with espeak-ng by the local renderer). */
  narration: string;
}

export interface RenderedIntro {
  /** A vertical 720x1280 H.264 MP4 (faststart, AAC audio), at most 30 s, inside the work dir. */
  videoPath: string;
  /** A JPEG poster (its first frame), inside the work dir. */
  posterPath: string;
  durationSeconds: number;
}

export interface RenderOptions {
  /** A private empty directory for this attempt; the caller deletes it afterwards, whatever happens. */
  workDir: string;
  /** Aborted when the worker shuts down or the job is cancelled: stop and clean up child processes. */
  signal: AbortSignal;
  /** The provider accepted the work (local: inputs prepared). Progress 25 in SPEC section 9. */
  onSubmitted(): Promise<void> | void;
  /** Rendering progress as a fraction 0..1 (mapped by the job to 50..90). */
  onProgress(fraction: number): Promise<void> | void;
}

export interface VideoProvider {
  readonly name: string;
  render(input: IntroInput, options: RenderOptions): Promise<RenderedIntro>;
}
