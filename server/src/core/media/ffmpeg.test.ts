// The ffmpeg helpers against real ffmpeg/ffprobe: probing, container sniffing, the vertical
// transcode (which keeps none of the original's metadata), and that an abort or a time limit kills
// the child.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../../test/harness';
import {
  clipWithMetadata,
  jpegMetadataSegments,
  metadataLeaks,
  PLANTED,
  readMetadata,
} from '../../test/video-metadata';
import { probeVideo, runFfmpeg, sniffVideoContainer, transcodeToVertical, VideoProbeError } from './ffmpeg';

let tmp: string;
const make = (name: string, args: string[]) => {
  const file = path.join(tmp, name);
  execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args, file]);
  return file;
};

describe('ffmpeg helpers', () => {
  let landscape: string;
  let silent: string;
  beforeAll(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'podmatch-ffmpeg-'));
    landscape = make('landscape.mp4', [
      ...['-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=25', '-f', 'lavfi', '-i', 'sine=frequency=440'],
      ...['-t', '3', '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', '-shortest'],
    ]);
    silent = make('silent.webm', ['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=10', '-t', '2', '-c:v', 'libvpx']);
  }, 60_000);
  afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

  it('probes duration, size, codec and audio', async () => {
    const probe = await probeVideo(landscape);
    expect(probe).toMatchObject({ width: 640, height: 360, videoCodec: 'h264', hasAudio: true });
    expect(probe.durationSeconds).toBeCloseTo(3, 0);
    expect(await probeVideo(silent)).toMatchObject({ hasAudio: false, videoCodec: 'vp8' });
  });

  it('tells video containers from everything else by their first bytes', async () => {
    expect(sniffVideoContainer(await fs.readFile(landscape))).toBe('mp4');
    expect(sniffVideoContainer(await fs.readFile(silent))).toBe('webm');
    expect(sniffVideoContainer(Buffer.from('<!doctype html><html></html>'))).toBeNull();
    expect(sniffVideoContainer(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'))).toBeNull();
    expect(sniffVideoContainer(Buffer.alloc(0))).toBeNull();
  });

  it('refuses a truncated MP4 and a file that is no video', async () => {
    const data = await fs.readFile(landscape);
    const truncated = path.join(tmp, 'cut.mp4');
    await fs.writeFile(truncated, data.subarray(0, Math.floor(data.length / 2)));
    await expect(probeVideo(truncated)).rejects.toMatchObject({ reason: 'unreadable' });
    const html = path.join(tmp, 'page.mp4');
    await fs.writeFile(html, '<!doctype html><script>alert(1)</script>');
    await expect(probeVideo(html)).rejects.toBeInstanceOf(VideoProbeError);
    const wav = make('tone.wav', ['-f', 'lavfi', '-i', 'sine=frequency=440', '-t', '1']);
    await expect(probeVideo(wav)).rejects.toMatchObject({ reason: 'no_video' });
  });

  it('transcodes to a padded vertical 720x1280 H.264 MP4, keeping audio only when there is some', async () => {
    const out = await transcodeToVertical(landscape, path.join(tmp, 'out1'));
    expect(await probeVideo(out.videoPath)).toMatchObject({
      width: 720,
      height: 1280,
      videoCodec: 'h264',
      hasAudio: true,
    });
    expect((await fs.readFile(out.posterPath)).subarray(0, 2).toString('hex')).toBe('ffd8');
    const quiet = await transcodeToVertical(silent, path.join(tmp, 'out2'));
    expect(await probeVideo(quiet.videoPath)).toMatchObject({ width: 720, height: 1280, hasAudio: false });
  });

  it('keeps no metadata of the original: no place, title, comment, device, creation time or chapters', async () => {
    for (const name of ['phone.mov', 'phone.mkv']) {
      const input = await clipWithMetadata(path.join(tmp, name));
      // The input really carries them, so a transcode that copied them would be caught.
      const before = readMetadata(input);
      const tags = Object.fromEntries(Object.entries(before.formatTags).map(([k, v]) => [k.toLowerCase(), v]));
      expect(tags, name).toMatchObject({ location: PLANTED.location, title: PLANTED.title, comment: PLANTED.comment });
      if (name.endsWith('.mov')) {
        expect(tags['com.apple.quicktime.location.iso6709']).toBe(PLANTED.iso6709);
        expect(tags['com.apple.quicktime.model']).toBe(PLANTED.model);
      }
      expect(before.chapters.map((c) => c.title)).toContain(PLANTED.chapter);
      expect(JSON.stringify(before.streams)).toContain(PLANTED.handler);
      expect(await metadataLeaks(input)).not.toEqual([]);

      const out = await transcodeToVertical(input, path.join(tmp, `out-${name}`));
      expect(await metadataLeaks(out.videoPath), name).toEqual([]);
      expect(readMetadata(out.videoPath).streams.map((s) => s.type)).toEqual(['video', 'audio']);
      expect(await jpegMetadataSegments(out.posterPath), name).toEqual([]);
    }
  });

  it('kills ffmpeg on abort and on its time limit', async () => {
    // It never ends by itself: only the abort or the time limit can end these runs.
    const endless = ['-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=30', '-f', 'null', '-'];
    const children = () => execFileSync('ps', ['-o', 'args=', '--ppid', String(process.pid)]).toString();
    const controller = new AbortController();
    const run = runFfmpeg(endless, { signal: controller.signal });
    await until(async () => children().includes('testsrc2'), 'ffmpeg running');
    controller.abort();
    await expect(run).rejects.toThrow(/aborted/);
    await expect(runFfmpeg(endless, { timeoutMs: 300 })).rejects.toThrow(/timed out/);
    expect(children()).not.toContain('testsrc2');
  });
});
