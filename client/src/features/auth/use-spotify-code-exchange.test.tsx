import { STORAGE_KEYS } from '@shared/constants';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { makeSelfUser } from '@/test/fixtures';
import { jsonResponse, mockFetch, renderApp } from '@/test/utils';

describe('/login?spotify_code= (after "Continue with Spotify")', () => {
  it('trades the one-time code for a session and opens the feed', async () => {
    const user = makeSelfUser({ id: 41, displayName: 'Spotify Person', spotifyId: 'sp41', spotifyConnected: true });
    const fetchMock = mockFetch((url, init) => {
      if (url === '/api/auth/spotify/exchange' && init.method === 'POST')
        return jsonResponse({ token: 'tok-41', user });
      if (url === '/api/users/41') return jsonResponse(user);
      return jsonResponse({ error: 'not_found', message: 'nope' }, { status: 404 });
    });
    const { router } = renderApp('/login?spotify_code=abc123');
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect((await screen.findByTestId('user-display-name')).textContent).toBe('Spotify Person');
    const calls = fetchMock.mock.calls.filter(([url]) => url === '/api/auth/spotify/exchange');
    expect(calls).toHaveLength(1);
    expect(calls[0]?.[1]?.body).toBe('{"code":"abc123"}');
    expect(localStorage.getItem(STORAGE_KEYS.token)).toBe('tok-41');
  });

  it('an expired code shows the login failure toast and drops the code from the URL', async () => {
    mockFetch(() =>
      jsonResponse({ error: 'bad_request', message: 'This Spotify sign-in has expired.' }, { status: 400 }),
    );
    const { router } = renderApp('/login?spotify_code=old');
    await screen.findByText('Login failed');
    expect(router.state.location.pathname).toBe('/login');
    expect(router.state.location.search).not.toContain('spotify_code');
    expect(localStorage.getItem(STORAGE_KEYS.token)).toBeNull();
  });
});
