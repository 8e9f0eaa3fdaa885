import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { drawSlides, LocalVideoProvider } from './local-renderer';
import type { IntroInput } from './video-provider';
import { removeWorkDir } from './work-dir';

const solid = (r: number, g: number, b: number) =>
  sharp({ create: { width: 64, height: 64, channels: 3, background: { r, g, b } } })
    .png()
    .toBuffer();

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true }))));

/** The decoded pixels of both slides drawn for `input`. */
async function slidePixels(input: IntroInput): Promise<Buffer[]> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'slides-'));
  dirs.push(dir);
  const { intro, shows } = await drawSlides(input, dir);
  return Promise.all([intro, shows].map((file) => sharp(file).raw().toBuffer()));
}

describe('the generated intro slides', () => {
  it('carry none of the texts the feed card shows: name, tagline and match % change nothing drawn', async () => {
    const [picture, artwork] = await Promise.all([solid(200, 80, 40), solid(20, 120, 220)]);
    const base: IntroInput = {
      intent: 'romantic',
      displayName: 'Oliver',
      tagline: 'Castles, museums and long walks',
      taglineKind: 'custom',
      matchPercentage: 95,
      picture,
      podcasts: [
        { name: 'History Hour', creator: 'BBC', artwork },
        { name: 'Art Talk', creator: null, artwork },
      ],
      narration: 'Hi, I am Oliver.',
    };
    const other: IntroInput = {
      ...base,
      displayName: 'Maximiliana Featherstonehaugh',
      tagline: 'Something else entirely, and much longer than the first one',
      matchPercentage: 12,
      podcasts: base.podcasts.map((p, i) => ({ ...p, name: `Another show ${i}`, creator: 'Someone' })),
      narration: 'Hello there.',
    };
    const [a, b] = await Promise.all([slidePixels(base), slidePixels(other)]);
    expect(b[0]?.equals(a[0] as Buffer)).toBe(true);
    expect(b[1]?.equals(a[1] as Buffer)).toBe(true);

    // The comparison can fail: what the slides do show (the picture, the artwork) changes them.
    const [otherPicture, otherArtwork] = await Promise.all([solid(10, 200, 90), solid(250, 250, 0)]);
    const c = await slidePixels({
      ...base,
      picture: otherPicture,
      podcasts: [{ ...base.podcasts[0]!, artwork: otherArtwork }],
    });
    expect(c[0]?.equals(a[0] as Buffer)).toBe(false);
    expect(c[1]?.equals(a[1] as Buffer)).toBe(false);
  });
});

describe('a render that fails', () => {
  it('fails only once its other steps are done, so its work directory is removed whole', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'render-fails-'));
    dirs.push(dir);
    // ffmpeg that fails at once, while the poster (drawn beside the encode) is still being written.
    const ffmpeg = path.join(dir, 'failing-ffmpeg');
    await fs.writeFile(ffmpeg, '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    const before = process.env.FFMPEG_PATH;
    process.env.FFMPEG_PATH = ffmpeg;
    try {
      const workDir = path.join(dir, 'work');
      await fs.mkdir(workDir);
      const picture = await solid(200, 80, 40);
      const render = new LocalVideoProvider().render(
        {
          intent: 'platonic',
          displayName: 'Ada',
          tagline: 'Podcasts about machines',
          taglineKind: 'custom',
          matchPercentage: 50,
          picture,
          podcasts: [{ name: 'Machine Talk', creator: null, artwork: picture }],
          narration: 'Hi, I am Ada.',
        },
        { workDir, signal: new AbortController().signal, onSubmitted: () => undefined, onProgress: () => undefined },
      );
      await expect(render).rejects.toThrow();
      // The poster step had finished when the failure was reported: nothing writes here any more.
      expect(await fs.readdir(workDir)).toContain('poster.jpg');
      await removeWorkDir(workDir);
      await expect(fs.stat(workDir)).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      if (before === undefined) delete process.env.FFMPEG_PATH;
      else process.env.FFMPEG_PATH = before;
    }
  });
});
