// The default video provider (docs/videos.md): slides drawn with sharp in the intent's theme colours,
// narration spoken by espeak-ng, both encoded by one ffmpeg run into a vertical H.264/AAC MP4.
import fs from 'node:fs/promises';
import path from 'node:path';
import { placeholderColors, placeholderInitial } from '@server/core/artwork/placeholder';
import { NO_METADATA, runFfmpeg, runProcess, VERTICAL } from '@server/core/media/ffmpeg';
import { INTENT_INFO, LIMITS } from '@shared/index';
import sharp from 'sharp';
import type { IntroInput, RenderedIntro, RenderOptions, VideoProvider } from './video-provider';

const { width: W, height: H } = VERTICAL;
/** Still slides need few frames; 20 fps keeps the crossfade smooth and the encode fast. */
const FPS = 20;
const FADE_SECONDS = 0.5;
const MIN_SECONDS = 6;
const FONT = "'DejaVu Sans', sans-serif";

const espeakPath = () => process.env.ESPEAK_PATH || 'espeak-ng';

const escapeXml = (text: string) =>
  text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c);

function background([from, to]: readonly [string, string]): string {
  // The lower part darkens smoothly: the feed card's text sits there.
  return `<defs><linearGradient id="bg" x1="0" y1="0" x2="0.4" y2="1">
    <stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient>
    <linearGradient id="shade" x1="0" y1="0" x2="0" y2="1">
    <stop offset="0" stop-color="#000" stop-opacity="0"/><stop offset="1" stop-color="#000" stop-opacity="0.45"/></linearGradient></defs>
    <rect width="${W}" height="${H}" fill="url(#bg)"/>
    <rect y="${H * 0.55}" width="${W}" height="${H * 0.45}" fill="url(#shade)"/>`;
}

/** A square tile: the image cropped to fill, or a letter placeholder in the name's colours. */
async function tile(image: Buffer | null, name: string, size: number, round: boolean): Promise<Buffer> {
  const mask = Buffer.from(
    round
      ? `<svg width="${size}" height="${size}"><circle cx="${size / 2}" cy="${size / 2}" r="${size / 2}"/></svg>`
      : `<svg width="${size}" height="${size}"><rect width="${size}" height="${size}" rx="${size * 0.12}"/></svg>`,
  );
  let base: Buffer | null = null;
  if (image) {
    base = await sharp(image, { limitInputPixels: 40_000_000 })
      .rotate()
      .resize(size, size, { fit: 'cover' })
      .png()
      .toBuffer()
      .catch(() => null);
  }
  if (!base) {
    const [from, to] = placeholderColors(name);
    base = await sharp(
      Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}">
        <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs>
        <rect width="${size}" height="${size}" fill="url(#g)"/>
        <text x="50%" y="50%" dy="0.35em" text-anchor="middle" font-family="${FONT}" font-weight="bold" font-size="${size * 0.45}" fill="#fff">${escapeXml(placeholderInitial(name))}</text></svg>`),
    )
      .png()
      .toBuffer();
  }
  return sharp(base)
    .composite([{ input: mask, blend: 'dest-in' }])
    .png()
    .toBuffer();
}

/**
 * The first slide (and the poster): the person's picture, large, in the intent's colours. No text:
 * the feed card lays the name, tagline and real match % over the video, so the video carries none of
 * them (two texts would collide, and a number drawn at render time would soon be wrong). The lower
 * part of every slide stays empty for the card's text.
 */
async function introSlide(input: IntroInput, file: string): Promise<void> {
  const colors = INTENT_INFO[input.intent].videoColors;
  const pictureSize = 460;
  const centerY = 470;
  const picture = await tile(input.picture, input.displayName, pictureSize, true);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${background(colors)}
    <circle cx="${W / 2}" cy="${centerY}" r="${pictureSize / 2 + 60}" fill="#fff" opacity="0.12"/>
    <circle cx="${W / 2}" cy="${centerY}" r="${pictureSize / 2 + 14}" fill="#fff" opacity="0.9"/>
  </svg>`;
  await sharp(Buffer.from(svg))
    .composite([{ input: picture, left: W / 2 - pictureSize / 2, top: centerY - pictureSize / 2 }])
    .png({ compressionLevel: 1 })
    .toFile(file);
}

/** The second slide: the artwork of the person's top shows (at most 5), three then two. */
async function podcastsSlide(input: IntroInput, file: string): Promise<void> {
  const colors = INTENT_INFO[input.intent].videoColors;
  const size = 190;
  const gap = 30;
  const rowTops = [250, 250 + size + gap];
  const tiles = await Promise.all(input.podcasts.slice(0, 5).map((p) => tile(p.artwork, p.name, size, false)));
  const placed = tiles.map((input, i) => {
    const row = i < 3 ? 0 : 1;
    const inRow = row === 0 ? Math.min(3, tiles.length) : tiles.length - 3;
    const column = row === 0 ? i : i - 3;
    const left = Math.round(W / 2 - (inRow * size + (inRow - 1) * gap) / 2 + column * (size + gap));
    return { input, left, top: rowTops[row] as number };
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${background(colors)}
    <text x="${W / 2}" y="170" text-anchor="middle" font-family="${FONT}" font-weight="bold" font-size="52" fill="#fff">On my playlist</text>
  </svg>`;
  await sharp(Buffer.from(svg)).composite(placed).png({ compressionLevel: 1 }).toFile(file);
}

/**
 * Promise.all that waits for every step before it fails: when one fails at once (ffmpeg exits), the
 * others must not still be writing into the work directory the caller removes next (a file written
 * during the removal left the directory behind).
 */
async function allFinished<T extends readonly unknown[] | []>(
  steps: T,
): Promise<{ -readonly [P in keyof T]: Awaited<T[P]> }> {
  const settled = await Promise.allSettled(steps as readonly unknown[]);
  for (const step of settled) if (step.status === 'rejected') throw step.reason;
  return Promise.all(steps);
}

/** Draws both slides into `workDir`; answers their paths. */
export async function drawSlides(input: IntroInput, workDir: string): Promise<{ intro: string; shows: string }> {
  const intro = path.join(workDir, 'slide-intro.png');
  const shows = path.join(workDir, 'slide-podcasts.png');
  await allFinished([introSlide(input, intro), podcastsSlide(input, shows)]);
  return { intro, shows };
}

export class LocalVideoProvider implements VideoProvider {
  readonly name = 'local';

  async render(input: IntroInput, options: RenderOptions): Promise<RenderedIntro> {
    const { workDir, signal } = options;
    const narration = path.join(workDir, 'narration.wav');
    const [{ intro, shows }] = await allFinished([
      drawSlides(input, workDir),
      runProcess(espeakPath(), ['-v', 'en-us', '-s', '165', '-w', narration, input.narration], {
        signal,
        timeoutMs: 30_000,
      }),
    ]);
    const speech = await wavSeconds(narration);
    const total = Math.min(LIMITS.videoMaxSeconds, Math.max(MIN_SECONDS, speech + 1));
    const first = Math.max(3, total * 0.45);
    const second = total - first + FADE_SECONDS;
    await options.onSubmitted();

    const videoPath = path.join(workDir, 'intro.mp4');
    const posterPath = path.join(workDir, 'poster.jpg');
    await allFinished([
      runFfmpeg(
        [
          ...['-loop', '1', '-framerate', String(FPS), '-t', String(first), '-i', intro],
          ...['-loop', '1', '-framerate', String(FPS), '-t', String(second), '-i', shows],
          ...['-i', narration],
          '-filter_complex',
          `[0:v][1:v]xfade=transition=fade:duration=${FADE_SECONDS}:offset=${(first - FADE_SECONDS).toFixed(2)},format=yuv420p[v];[2:a]apad[a]`,
          ...['-map', '[v]', '-map', '[a]', '-t', total.toFixed(2)],
          ...['-c:v', 'libx264', '-preset', 'veryfast', '-tune', 'stillimage', '-crf', '24', '-r', String(FPS)],
          ...['-c:a', 'aac', '-b:a', '96k'],
          // No encoder versions or creation time in a file anyone with its URL reads.
          ...NO_METADATA,
          ...['-movflags', '+faststart', videoPath],
        ],
        {
          signal,
          timeoutMs: 120_000,
          durationSeconds: total,
          onProgress: (f) => {
            // Progress is best effort: a failed status write must not fail the render.
            Promise.resolve(options.onProgress(f)).catch(() => undefined);
          },
        },
      ),
      // sharp writes no metadata unless asked (no withMetadata()).
      sharp(intro).jpeg({ quality: 82 }).toFile(posterPath),
    ]);
    await options.onProgress(1);
    return { videoPath, posterPath, durationSeconds: total };
  }
}

/** The length of a PCM WAV file from its header (espeak-ng writes one data chunk). */
async function wavSeconds(file: string): Promise<number> {
  const data = await fs.readFile(file);
  const byteRate = data.readUInt32LE(28);
  const dataIndex = data.indexOf('data', 12, 'latin1');
  const bytes = dataIndex > 0 ? data.readUInt32LE(dataIndex + 4) : data.length - 44;
  return byteRate > 0 ? Math.min(bytes, data.length) / byteRate : MIN_SECONDS;
}
