import { VIDEO_TEXTS } from '@shared/schemas/videos';
import { describe, expect, it, vi } from 'vitest';
import { stubVideoMetadata } from '@/test/video';
import { checkVideoDuration, checkVideoFile, readVideoDuration } from './video-file';

const file = (name: string, type: string, size = 10) => {
  const f = new File(['x'], name, { type });
  Object.defineProperty(f, 'size', { value: size });
  return f;
};

describe('checkVideoFile', () => {
  it('accepts video types up to 50MB, and refuses other types and bigger files', () => {
    expect(checkVideoFile(file('me.mp4', 'video/mp4'))).toBeNull();
    expect(checkVideoFile(file('me.webm', 'video/webm', 50 * 1024 * 1024))).toBeNull();
    expect(checkVideoFile(file('me.mov', ''))).toBeNull();
    expect(checkVideoFile(file('notes.txt', 'text/plain'))).toBe(VIDEO_TEXTS.notAVideo);
    expect(checkVideoFile(file('photo.png', 'image/png'))).toBe(VIDEO_TEXTS.notAVideo);
    expect(checkVideoFile(file('noext', ''))).toBe(VIDEO_TEXTS.notAVideo);
    expect(checkVideoFile(file('me.mp4', 'video/mp4', 50 * 1024 * 1024 + 1))).toBe(VIDEO_TEXTS.tooLarge);
  });
});

describe('checkVideoDuration', () => {
  it('refuses over 30 s (with the server rounding grace), leaves unknown durations to the server', () => {
    expect(checkVideoDuration(30)).toBeNull();
    expect(checkVideoDuration(30.4)).toBeNull();
    expect(checkVideoDuration(31)).toBe(VIDEO_TEXTS.tooLong);
    expect(checkVideoDuration(null)).toBeNull();
  });
});

describe('readVideoDuration', () => {
  it('reads the duration from the metadata of a detached video element and revokes the object URL', async () => {
    const { createUrl, revokeUrl } = stubVideoMetadata(42.5);
    await expect(readVideoDuration(file('me.mp4', 'video/mp4'))).resolves.toBe(42.5);
    expect(createUrl).toHaveBeenCalledTimes(1);
    expect(revokeUrl).toHaveBeenCalledWith('blob:video-under-test');
  });

  it('gives null when the browser cannot read the metadata in time (and still revokes)', async () => {
    vi.useFakeTimers();
    const revokeUrl = vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
    vi.spyOn(URL, 'createObjectURL').mockReturnValue('blob:never-loads');
    const pending = readVideoDuration(file('me.mkv', 'video/x-matroska'), 1000);
    await vi.advanceTimersByTimeAsync(1000);
    await expect(pending).resolves.toBeNull();
    expect(revokeUrl).toHaveBeenCalledWith('blob:never-loads');
  });
});
