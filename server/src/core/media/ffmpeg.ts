// ffmpeg and ffprobe as child processes (docs/videos.md), shared by the server (checking uploads) and
// the worker (rendering, transcoding). Every call has a time limit and an abort signal, and kills
// its child on either, so no ffmpeg outlives the job that started it.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

const ffmpegPath = () => process.env.FFMPEG_PATH || 'ffmpeg';
const ffprobePath = () => process.env.FFPROBE_PATH || 'ffprobe';

/** Encoders run at a lower CPU priority than the API server sharing the machine. */
const CHILD_NICENESS = 10;

export interface RunOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** The output's expected length, to turn ffmpeg's `out_time` into a fraction. */
  durationSeconds?: number;
  onProgress?: (fraction: number) => void;
}

/** Runs a child to completion: stdout collected, the last 2 KB of stderr kept for the error. */
export function runProcess(
  command: string,
  args: string[],
  options: { signal?: AbortSignal; timeoutMs?: number; onStdout?: (chunk: string) => void } = {},
): Promise<{ stdout: string }> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(new Error(`${path.basename(command)} aborted`));
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid) {
      try {
        os.setPriority(child.pid, CHILD_NICENESS);
      } catch {
        // Not allowed here: run at normal priority.
      }
    }
    let stdout = '';
    let stderr = '';
    let failure: Error | null = null;
    const kill = (reason: string) => {
      failure ??= new Error(reason);
      child.kill('SIGKILL');
    };
    const timer = options.timeoutMs
      ? setTimeout(() => kill(`${path.basename(command)} timed out after ${options.timeoutMs} ms`), options.timeoutMs)
      : undefined;
    const onAbort = () => kill(`${path.basename(command)} aborted`);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (options.onStdout) options.onStdout(chunk);
      else if (stdout.length < 1_000_000) stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-2048);
    });
    child.on('error', (error) => {
      failure ??= error;
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (failure) return reject(failure);
      if (code !== 0) return reject(new Error(`${path.basename(command)} exited with ${code}: ${stderr.trim()}`));
      resolve({ stdout });
    });
  });
}

/** Runs ffmpeg with `args` (after the common flags), reporting progress from its `-progress` output. */
export async function runFfmpeg(args: string[], options: RunOptions = {}): Promise<void> {
  let pending = '';
  await runProcess(
    ffmpegPath(),
    ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-progress', 'pipe:1', ...args],
    {
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      onStdout: (chunk) => {
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          const match = /^out_time_(?:us|ms)=(\d+)/.exec(line);
          if (match && options.durationSeconds && options.onProgress) {
            // ffmpeg's out_time_ms is in microseconds too (a long-standing misnomer).
            options.onProgress(Math.min(1, Number(match[1]) / 1e6 / options.durationSeconds));
          }
        }
      },
    },
  );
}

export class VideoProbeError extends Error {
  constructor(
    readonly reason: 'unreadable' | 'no_video' | 'timeout',
    message: string,
  ) {
    super(message);
    this.name = 'VideoProbeError';
  }
}

export interface VideoProbe {
  durationSeconds: number;
  width: number;
  height: number;
  hasAudio: boolean;
  formatName: string;
  videoCodec: string;
}

interface ProbeJson {
  format?: { duration?: string; format_name?: string };
  streams?: { codec_type?: string; codec_name?: string; width?: number; height?: number; duration?: string }[];
}

/** What ffprobe reads of a file; a VideoProbeError when it cannot, or there is no picture. */
export async function probeVideo(file: string, options: { timeoutMs?: number } = {}): Promise<VideoProbe> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  let json: ProbeJson;
  try {
    const { stdout } = await runProcess(
      ffprobePath(),
      ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file],
      { timeoutMs },
    );
    json = JSON.parse(stdout) as ProbeJson;
  } catch (error) {
    const message = (error as Error).message;
    if (/timed out/.test(message)) throw new VideoProbeError('timeout', 'Reading the video took too long.');
    throw new VideoProbeError('unreadable', `ffprobe could not read the file: ${message.slice(0, 300)}`);
  }
  const video = json.streams?.find((s) => s.codec_type === 'video');
  if (!video) throw new VideoProbeError('no_video', 'The file has no video stream.');
  const duration = Number(json.format?.duration ?? video.duration ?? Number.NaN);
  if (!Number.isFinite(duration)) throw new VideoProbeError('unreadable', 'The video has no duration.');
  return {
    durationSeconds: duration,
    width: video.width ?? 0,
    height: video.height ?? 0,
    hasAudio: json.streams?.some((s) => s.codec_type === 'audio') ?? false,
    formatName: json.format?.format_name ?? '',
    videoCodec: video.codec_name ?? '',
  };
}

/** The container a file's first bytes announce (magic bytes), or null for anything that is not a video. */
export function sniffVideoContainer(head: Buffer): 'mp4' | 'webm' | 'mkv' | 'avi' | null {
  // ISO base media (MP4, MOV, M4V, 3GP): a box size, then 'ftyp'.
  if (head.length >= 12 && head.toString('latin1', 4, 8) === 'ftyp') return 'mp4';
  // EBML: WebM or Matroska, told apart by the DocType when it is in the head.
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) {
    return head.includes(Buffer.from('matroska', 'latin1')) ? 'mkv' : 'webm';
  }
  if (head.length >= 12 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 11) === 'AVI') {
    return 'avi';
  }
  return null;
}

export const VERTICAL = { width: 720, height: 1280 } as const;

/**
 * Output options that write no metadata but what ffmpeg needs to play the file: a phone's video
 * carries its recording place (`location`, `com.apple.quicktime.location.ISO6709`), title, comment,
 * device make and model and creation time, globally, per stream and in chapters, and ffmpeg copies
 * all of them by default. Bitexact stops the muxer and encoders adding creation times and their
 * version strings. What remains (checked with ffprobe in ffmpeg.test.ts): the brand atoms, the
 * generic handler names (VideoHandler, SoundHandler) and 'Lavc libx264'.
 */
export const NO_METADATA = [
  ...['-map_metadata', '-1', '-map_metadata:s', '-1', '-map_chapters', '-1'],
  ...['-fflags', '+bitexact', '-flags:v', '+bitexact', '-flags:a', '+bitexact'],
] as const;

/**
 * A person's video as we serve it: H.264 (yuv420p) fitted inside 720x1280 and padded, at most 30 fps,
 * AAC audio when the original has sound, moov atom first (plays before it has fully loaded), cut at
 * `maxSeconds`; plus a JPEG poster near the first second. Neither keeps any of the original's metadata
 * (NO_METADATA): the file is served to anyone with its URL.
 */
export async function transcodeToVertical(
  input: string,
  outDir: string,
  options: { signal?: AbortSignal; onProgress?: (fraction: number) => void; maxSeconds?: number } = {},
): Promise<{ videoPath: string; posterPath: string; durationSeconds: number }> {
  const maxSeconds = options.maxSeconds ?? 30;
  const source = await probeVideo(input);
  const duration = Math.min(source.durationSeconds, maxSeconds);
  await fs.mkdir(outDir, { recursive: true });
  const videoPath = path.join(outDir, 'intro.mp4');
  const posterPath = path.join(outDir, 'poster.jpg');
  const { width, height } = VERTICAL;
  await runFfmpeg(
    [
      ...['-i', input, '-t', String(maxSeconds)],
      ...['-map', '0:v:0', ...(source.hasAudio ? ['-map', '0:a:0'] : [])],
      '-vf',
      `scale=${width}:${height}:force_original_aspect_ratio=decrease,pad=${width}:${height}:(ow-iw)/2:(oh-ih)/2:black,setsar=1`,
      ...['-fpsmax', '30'],
      ...['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-pix_fmt', 'yuv420p', '-profile:v', 'high'],
      ...(source.hasAudio ? ['-c:a', 'aac', '-b:a', '128k', '-ac', '2'] : ['-an']),
      ...NO_METADATA,
      ...['-movflags', '+faststart', videoPath],
    ],
    { signal: options.signal, timeoutMs: 5 * 60_000, durationSeconds: duration, onProgress: options.onProgress },
  );
  await runFfmpeg(
    [
      ...['-ss', String(Math.min(1, duration / 2)), '-i', videoPath],
      ...['-frames:v', '1', '-q:v', '3', ...NO_METADATA, posterPath],
    ],
    { signal: options.signal, timeoutMs: 60_000 },
  );
  const result = await probeVideo(videoPath);
  return { videoPath, posterPath, durationSeconds: result.durationSeconds };
}
