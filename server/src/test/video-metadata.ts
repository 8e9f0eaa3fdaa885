// What a video or poster says about the person who made it: a clip made the way a phone records one
// (place, title, comment, device, creation time, chapters), and ffprobe's and the JPEG markers' view
// of a file we serve, for the tests of the metadata stripping (docs/videos.md, "Metadata").
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';

/** Values planted in the clip; none may appear anywhere in a served file. */
export const PLANTED = {
  location: '+48.8584+002.2945/',
  iso6709: '+48.8584+002.2945+035.000/',
  title: 'Planted title at home',
  comment: 'Planted comment with a phone number',
  make: 'PlantedMake',
  model: 'PlantedPhone 15 Pro',
  creationTime: '2021-03-04T05:06:07.000000Z',
  handler: 'PlantedCoreMediaVideo',
  chapter: 'Planted chapter at the bakery',
  encoder: 'PlantedEncoder 17.4',
} as const;

/**
 * A 2 s clip with sound carrying every item of PLANTED: global tags (`use_metadata_tags` makes the
 * MOV muxer write the QuickTime keys as phones do), stream tags and two titled chapters. `.mov` or
 * `.mkv` by the file name.
 */
export async function clipWithMetadata(file: string): Promise<string> {
  const chapters = `${file}.ffmetadata`;
  await fs.writeFile(
    chapters,
    [
      ';FFMETADATA1',
      '[CHAPTER]',
      'TIMEBASE=1/1000',
      'START=0',
      'END=1000',
      `title=${PLANTED.chapter}`,
      '[CHAPTER]',
      'TIMEBASE=1/1000',
      'START=1000',
      'END=2000',
      'title=Second',
      '',
    ].join('\n'),
  );
  const global = {
    location: PLANTED.location,
    'location-eng': PLANTED.location,
    'com.apple.quicktime.location.ISO6709': PLANTED.iso6709,
    title: PLANTED.title,
    comment: PLANTED.comment,
    make: PLANTED.make,
    model: PLANTED.model,
    'com.apple.quicktime.make': PLANTED.make,
    'com.apple.quicktime.model': PLANTED.model,
    creation_time: PLANTED.creationTime,
    encoder: PLANTED.encoder,
  };
  const stream = { handler_name: PLANTED.handler, title: PLANTED.title, creation_time: PLANTED.creationTime };
  execFileSync('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y'],
    ...['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=10', '-f', 'lavfi', '-i', 'sine=frequency=440'],
    ...['-i', chapters, '-map', '0:v', '-map', '1:a', '-map_chapters', '2'],
    ...['-t', '2', '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', '-shortest'],
    ...Object.entries(global).flatMap(([key, value]) => ['-metadata', `${key}=${value}`]),
    ...Object.entries(stream).flatMap(([key, value]) => [
      ...['-metadata:s:v', `${key}=${value}`],
      ...['-metadata:s:a', `${key}=${value}`],
    ]),
    ...(file.endsWith('.mov') ? ['-movflags', 'use_metadata_tags'] : []),
    file,
  ]);
  await fs.rm(chapters);
  return file;
}

export interface FileMetadata {
  formatTags: Record<string, string>;
  streams: { type: string; tags: Record<string, string> }[];
  chapters: { title?: string }[];
}

/** ffprobe's format tags, stream tags and chapters of `file`. */
export function readMetadata(file: string): FileMetadata {
  const json = JSON.parse(
    execFileSync('ffprobe', [
      ...['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', '-show_chapters', file],
    ]).toString(),
  ) as {
    format: { tags?: Record<string, string> };
    streams: { codec_type: string; tags?: Record<string, string> }[];
    chapters: { tags?: Record<string, string> }[];
  };
  return {
    formatTags: json.format.tags ?? {},
    streams: json.streams.map((s) => ({ type: s.codec_type, tags: s.tags ?? {} })),
    chapters: json.chapters.map((c) => ({ title: c.tags?.title })),
  };
}

/** The tags ffmpeg writes into every MP4 we serve, and nothing else. */
const ALLOWED_FORMAT_TAGS = ['major_brand', 'minor_version', 'compatible_brands'];
const ALLOWED_STREAM_TAGS: Record<string, string[]> = {
  language: ['und'],
  handler_name: ['VideoHandler', 'SoundHandler'],
  vendor_id: ['[0][0][0][0]'],
  encoder: ['Lavc libx264'],
};

/**
 * Every way a served MP4 could still carry what the uploader's file said, as readable lines (an empty
 * list when there is none): a tag not in the allow-list (location, ISO6709, title, comment, make,
 * model, creation_time, an encoder naming a device or a version...), any chapter or extra stream,
 * and any planted value anywhere in the file's bytes.
 */
export async function metadataLeaks(file: string): Promise<string[]> {
  const leaks: string[] = [];
  const meta = readMetadata(file);
  for (const [key, value] of Object.entries(meta.formatTags)) {
    if (!ALLOWED_FORMAT_TAGS.includes(key)) leaks.push(`format tag ${key}=${value}`);
  }
  for (const stream of meta.streams) {
    if (stream.type !== 'video' && stream.type !== 'audio') leaks.push(`a ${stream.type} stream`);
    for (const [key, value] of Object.entries(stream.tags)) {
      if (!ALLOWED_STREAM_TAGS[key]?.includes(value)) leaks.push(`${stream.type} stream tag ${key}=${value}`);
    }
  }
  for (const chapter of meta.chapters) leaks.push(`chapter ${chapter.title ?? '(untitled)'}`);
  const bytes = await fs.readFile(file);
  for (const [name, value] of Object.entries(PLANTED)) {
    if (bytes.includes(value) || bytes.includes(value.slice(0, 12))) leaks.push(`the ${name} in the file's bytes`);
  }
  return leaks;
}

/**
 * The JPEG markers of a poster that can carry metadata: APP1..APP15 (EXIF, XMP, ICC, IPTC...) and
 * COM (ffmpeg writes its version there). Only APP0 (JFIF) and the image's own segments may remain.
 */
export async function jpegMetadataSegments(file: string): Promise<string[]> {
  const data = await fs.readFile(file);
  if (data.readUInt16BE(0) !== 0xffd8) throw new Error(`${path.basename(file)} is no JPEG`);
  const found: string[] = [];
  let at = 2;
  while (at + 4 <= data.length && data[at] === 0xff) {
    const marker = data[at + 1] ?? 0;
    if (marker === 0xda) break; // start of scan: the image data follows
    const length = data.readUInt16BE(at + 2);
    if (marker >= 0xe1 && marker <= 0xef) found.push(`APP${marker - 0xe0}`);
    if (marker === 0xfe) found.push(`COM ${data.toString('latin1', at + 4, at + 2 + length).replace(/\0/g, '')}`);
    at += 2 + length;
  }
  return found;
}
