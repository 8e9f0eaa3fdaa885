import { STORAGE_KEYS } from '@shared/constants';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeXhr } from '@/test/fake-xhr';
import { ApiError } from './http';
import { readStoredToken } from './session';
import { uploadWithProgress } from './upload';

afterEach(() => {
  FakeXhr.last = null;
});

describe('uploadWithProgress', () => {
  it('posts the file in the named field with the bearer token and reports progress', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    localStorage.setItem(STORAGE_KEYS.token, 'tok-1');
    localStorage.setItem(STORAGE_KEYS.userId, '7');
    const progress: number[] = [];
    const file = new File(['abc'], 'me.png', { type: 'image/png' });
    const done = uploadWithProgress('/api/users/7/profile-picture', file, {
      field: 'profilePicture',
      onProgress: (p) => progress.push(p),
    });
    const xhr = FakeXhr.last as FakeXhr;
    expect(xhr.method).toBe('POST');
    expect(xhr.url).toBe('/api/users/7/profile-picture');
    expect(xhr.headers.Authorization).toBe('Bearer tok-1');
    expect(xhr.withCredentials).toBe(true);
    expect(((xhr.body as FormData).get('profilePicture') as File).name).toBe('me.png');
    xhr.progress(1, 4);
    xhr.progress(4, 4);
    xhr.respond(200, { profilePicture: '/media/x.webp' }, { 'X-New-Token': 'tok-2' });
    await expect(done).resolves.toEqual({ profilePicture: '/media/x.webp' });
    expect(progress).toEqual([25, 100, 100]);
    expect(readStoredToken()).toBe('tok-2');
  });

  it("rejects a refusal with an ApiError carrying the server's message", async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    const done = uploadWithProgress('/u', new Blob(['x']), { field: 'profilePicture' });
    FakeXhr.last?.respond(413, { error: 'payload_too_large', message: 'File too large: smaller please.' });
    const error = await done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(413);
    expect((error as ApiError).serverMessage).toBe('File too large: smaller please.');
  });

  it('rejects on a network error and on abort', async () => {
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    const failed = uploadWithProgress('/u', new Blob(['x']), { field: 'f' });
    FakeXhr.last?.onerror?.();
    await expect(failed).rejects.toThrow(/Network error/);
    const controller = new AbortController();
    const aborted = uploadWithProgress('/u', new Blob(['x']), { field: 'f', signal: controller.signal });
    controller.abort();
    await expect(aborted).rejects.toThrow(/aborted/);
  });
});
