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

/** Emoji and pictographs have no glyph in the slide font (they would show as boxes). */
const drawable = (text: string) =>
  text
    .replace(/\p{Extended_Pictographic}|\u{FE0F}|\u{200D}/gu, '')
    .replace(/\s+/g, ' ')
    .trim();

const escapeXml = (text: string) =>
  text.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c] ?? c);

/** Cuts `text` to at most `max` characters, with an ellipsis. */
const truncate = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`);

/** Greedy word wrap into at most `lines` lines of `width` characters. */
function wrap(text: string, width: number, lines: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (next.length <= width) line = next;
    else {
      if (line) out.push(line);
      line = truncate(word, width);
    }
  }
  if (line) out.push(line);
  if (out.length > lines) {
    const kept = out.slice(0, lines);
    kept[lines - 1] = truncate(`${kept[lines - 1]} ${out[lines]}`, width);
    return kept;
  }
  return out;
}

function background([from, to]: readonly [string, string]): string {
  return `<defs><linearGradient id="bg" x1="0" y1="0" x2="0.4" y2="1">
    <stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient></defs>
    <rect width="${W}" height="${H}" fill="url(#bg)"/>
    <rect y="${H * 0.62}" width="${W}" height="${H * 0.38}" fill="#000" opacity="0.18"/>`;
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

async function introSlide(input: IntroInput, file: string): Promise<void> {
  const colors = INTENT_INFO[input.intent].videoColors;
  const pictureSize = 360;
  const picture = await tile(input.picture, input.displayName, pictureSize, true);
  const displayName = truncate(drawable(input.displayName), 24);
  const name = escapeXml(displayName);
  // Long names get a smaller font so they fit the frame (about 0.6 em per character).
  const nameSize = Math.min(64, Math.floor((W - 80) / (0.62 * Math.max(1, displayName.length))));
  const tagline = wrap(drawable(input.tagline), 30, 3)
    .map((line, i) => `<tspan x="${W / 2}" dy="${i === 0 ? 0 : 54}">${escapeXml(line)}</tspan>`)
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${background(colors)}
    <circle cx="${W / 2}" cy="430" r="${pictureSize / 2 + 12}" fill="#fff" opacity="0.9"/>
    <text x="${W / 2}" y="740" text-anchor="middle" font-family="${FONT}" font-weight="bold" font-size="${nameSize}" fill="#fff">${name}</text>
    <text x="${W / 2}" y="830" text-anchor="middle" font-family="${FONT}" font-size="40" fill="#fff" opacity="0.95">${tagline}</text>
    <rect x="${W / 2 - 170}" y="1040" width="340" height="84" rx="42" fill="#fff"/>
    <text x="${W / 2}" y="1097" text-anchor="middle" font-family="${FONT}" font-weight="bold" font-size="40" fill="${colors[0]}">${input.matchPercentage}% match</text>
    <text x="${W / 2}" y="150" text-anchor="middle" font-family="${FONT}" font-size="34" fill="#fff" opacity="0.85">${escapeXml(INTENT_INFO[input.intent].label)} on PodMatch</text>
  </svg>`;
  await sharp(Buffer.from(svg))
    .composite([{ input: picture, left: W / 2 - pictureSize / 2, top: 430 - pictureSize / 2 }])
    .png({ compressionLevel: 1 })
    .toFile(file);
}

async function podcastsSlide(input: IntroInput, file: string): Promise<void> {
  const colors = INTENT_INFO[input.intent].videoColors;
  const size = 140;
  const top = 300;
  const step = 180;
  const tiles = await Promise.all(input.podcasts.map((p) => tile(p.artwork, p.name, size, false)));
  const rows = input.podcasts
    .map((p, i) => {
      const y = top + i * step;
      const creator = p.creator
        ? `<text x="240" y="${y + 100}" font-family="${FONT}" font-size="30" fill="#fff" opacity="0.8">${escapeXml(truncate(drawable(p.creator), 28))}</text>`
        : '';
      return `<text x="240" y="${y + 60}" font-family="${FONT}" font-weight="bold" font-size="38" fill="#fff">${escapeXml(truncate(drawable(p.name), 22))}</text>${creator}`;
    })
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">${background(colors)}
    <text x="${W / 2}" y="200" text-anchor="middle" font-family="${FONT}" font-weight="bold" font-size="56" fill="#fff">My top podcasts</text>
    ${rows}</svg>`;
  await sharp(Buffer.from(svg))
    .composite(tiles.map((input, i) => ({ input, left: 70, top: top + i * step })))
    .png({ compressionLevel: 1 })
    .toFile(file);
}

export class LocalVideoProvider implements VideoProvider {
  readonly name = 'local';

  async render(input: IntroInput, options: RenderOptions): Promise<RenderedIntro> {
    const { workDir, signal } = options;
    const narration = path.join(workDir, 'narration.wav');
    const intro = path.join(workDir, 'slide-intro.png');
    const shows = path.join(workDir, 'slide-podcasts.png');
    await Promise.all([
      runProcess(espeakPath(), ['-v', 'en-us', '-s', '165', '-w', narration, input.narration], {
        signal,
        timeoutMs: 30_000,
      }),
      introSlide(input, intro),
      podcastsSlide(input, shows),
    ]);
    const speech = await wavSeconds(narration);
    const total = Math.min(LIMITS.videoMaxSeconds, Math.max(MIN_SECONDS, speech + 1));
    const first = Math.max(3, total * 0.45);
    const second = total - first + FADE_SECONDS;
    await options.onSubmitted();

    const videoPath = path.join(workDir, 'intro.mp4');
    const posterPath = path.join(workDir, 'poster.jpg');
    await Promise.all([
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
