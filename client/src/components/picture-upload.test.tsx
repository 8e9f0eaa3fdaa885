import { STORAGE_KEYS } from '@shared/constants';
import type { UserResponse } from '@shared/schemas/user';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { userQuery } from '@/lib/user-queries';
import { FakeXhr } from '@/test/fake-xhr';
import { makeSelfUser } from '@/test/fixtures';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { checkPicture, PictureUpload } from './picture-upload';

function signIn() {
  localStorage.setItem(STORAGE_KEYS.token, 'tok');
  localStorage.setItem(STORAGE_KEYS.userId, '7');
  return mockFetch(() => jsonResponse(makeSelfUser()));
}

function choose(file: File) {
  fireEvent.change(screen.getByTestId('picture-file-input'), { target: { files: [file] } });
}

const png = (bytes = 10) => new File([new Uint8Array(bytes)], 'me.png', { type: 'image/png' });

describe('checkPicture', () => {
  it('accepts the server types up to 5 MB and refuses the rest', () => {
    expect(checkPicture(png())).toBeNull();
    expect(checkPicture(new File(['x'], 'a.txt', { type: 'text/plain' }))).toBe('invalidType');
    expect(checkPicture(new File(['<svg/>'], 'a.svg', { type: 'image/svg+xml' }))).toBe('invalidType');
    expect(checkPicture(new File(['x'], 'a.webp', { type: '' }))).toBeNull();
    expect(checkPicture(png(5 * 1024 * 1024))).toBeNull();
    expect(checkPicture(png(5 * 1024 * 1024 + 1))).toBe('tooLarge');
  });
});

describe('PictureUpload', () => {
  it('refuses a text file and a 6 MB image before any request, with toast and inline text', async () => {
    const fetchMock = signIn();
    const xhr = vi.fn();
    vi.stubGlobal('XMLHttpRequest', xhr);
    renderWithProviders(<PictureUpload />);
    await waitFor(() => expect(fetchMock).toHaveBeenCalled());
    const before = fetchMock.mock.calls.length;

    choose(new File(['hello'], 'notes.txt', { type: 'text/plain' }));
    expect(await screen.findByText('Please select an image file (JPEG, PNG, etc.)')).toBeTruthy();
    expect(screen.getByText('Invalid file type: Please select an image file (JPEG, PNG, etc.)')).toBeTruthy();

    choose(png(6 * 1024 * 1024));
    expect(await screen.findByText('Please select an image smaller than 5MB')).toBeTruthy();
    expect(screen.getByText('File too large: Please select an image smaller than 5MB')).toBeTruthy();

    expect(xhr).not.toHaveBeenCalled();
    expect(fetchMock.mock.calls.length).toBe(before);
  });

  it('uploads with a real progress bar, updates the cached user and calls onUploaded', async () => {
    signIn();
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    const onUploaded = vi.fn();
    const { queryClient } = renderWithProviders(<PictureUpload onUploaded={onUploaded} />);
    await waitFor(() => expect(queryClient.getQueryData(userQuery(7).queryKey)).toBeTruthy());

    choose(png());
    const xhr = FakeXhr.last as FakeXhr;
    expect(xhr.url).toBe('/api/users/7/profile-picture');
    expect(xhr.headers.Authorization).toBe('Bearer tok');
    act(() => xhr.progress(40, 100));
    const bar = await screen.findByRole('progressbar', { name: 'Upload progress' });
    expect(bar.getAttribute('aria-valuenow')).toBe('40');
    act(() => xhr.respond(200, { profilePicture: '/media/pictures/new.webp' }));

    await waitFor(() => expect(onUploaded).toHaveBeenCalledWith('/media/pictures/new.webp'));
    expect(screen.getByRole('progressbar').getAttribute('aria-valuenow')).toBe('100');
    const cached = queryClient.getQueryData<UserResponse>(userQuery(7).queryKey);
    expect(cached?.profilePicture).toBe('/media/pictures/new.webp');
  });

  it("shows the server's message when it refuses the picture", async () => {
    signIn();
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    const onUploaded = vi.fn();
    renderWithProviders(<PictureUpload onUploaded={onUploaded} />);
    choose(png());
    act(() =>
      FakeXhr.last?.respond(415, { error: 'unsupported_media_type', message: 'Invalid file type: not a picture.' }),
    );
    expect(await screen.findByText('Invalid file type: not a picture.')).toBeTruthy();
    expect(screen.getByText('Upload Failed')).toBeTruthy();
    expect(onUploaded).not.toHaveBeenCalled();
  });
});
