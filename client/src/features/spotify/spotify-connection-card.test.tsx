import { JOB_ERROR_TEXTS, type JobStatusEvent } from '@shared/events';
import { SPOTIFY_CONNECT_TEXTS, type SpotifyStatus } from '@shared/schemas/spotify';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { getSocket } from '@/lib/socket';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { SpotifyConnectionCard } from './spotify-connection-card';

const USER = 7;
const entry = (id: number, name: string, source: 'spotify' | 'manual' = 'spotify') => ({
  id,
  userId: USER,
  podcastId: id,
  episodeCount: 10,
  lastListened: null,
  hidden: false,
  timesListened: 1,
  lastEpisode: null,
  source,
  podcast: { id, name, creator: 'Someone', imageUrl: null, category: null },
});

function status(overrides: Partial<SpotifyStatus> = {}): SpotifyStatus {
  return { available: true, connected: false, spotifyId: null, lastSpotifySync: null, ...overrides };
}

/** Delivers a server event to the listener the app registered on the (unconnected) socket. */
function serverSends(event: JobStatusEvent) {
  act(() => {
    for (const listener of getSocket().listeners('job:status')) listener(event);
  });
}

describe('SpotifyConnectionCard', () => {
  it('when not connected, Connect asks for a one-time ticket and navigates to it', async () => {
    const fetchMock = mockFetch((url, init) => {
      if (url === `/api/users/${USER}/spotify`) return jsonResponse(status());
      if (url === '/api/spotify/connect-ticket' && init.method === 'POST') {
        return jsonResponse({ url: '/api/spotify/login?ticket=t1' });
      }
      return jsonResponse({ error: 'not_found', message: 'nope' }, { status: 404 });
    });
    renderWithProviders(<SpotifyConnectionCard userId={USER} />);
    expect((await screen.findByTestId('spotify-state')).textContent).toBe('Checking connection...');
    await waitFor(() => expect(screen.getByTestId('spotify-state').textContent).toBe('Not connected'));
    fireEvent.click(screen.getByRole('button', { name: 'Connect Spotify' }));
    await waitFor(() => expect(location.href).toContain('/api/spotify/login?ticket=t1'));
    expect(fetchMock.mock.calls.some(([url]) => url === '/api/spotify/connect-ticket')).toBe(true);
  });

  it('back from Spotify, claims the connect once; a refused claim says why and links nothing', async () => {
    const claims: unknown[] = [];
    mockFetch((url, init) => {
      if (url === `/api/users/${USER}/spotify`) return jsonResponse(status());
      if (url === '/api/spotify/connect/finish' && init.method === 'POST') {
        claims.push(JSON.parse(String(init.body)));
        return jsonResponse({ error: 'forbidden', message: SPOTIFY_CONNECT_TEXTS.otherAccount }, { status: 403 });
      }
      return jsonResponse({ error: 'not_found', message: 'nope' }, { status: 404 });
    });
    renderWithProviders(<SpotifyConnectionCard userId={USER} />, { path: '/profile?spotify_connect=c1' });
    await screen.findByText(SPOTIFY_CONNECT_TEXTS.otherAccount);
    screen.getByText('Spotify connection failed');
    expect(claims).toEqual([{ code: 'c1' }]);
    expect(screen.queryByText('Spotify Connected')).toBeNull();
  });

  it('is not offered when the server has no Spotify credentials', async () => {
    const fetchMock = mockFetch(() => jsonResponse(status({ available: false })));
    renderWithProviders(<SpotifyConnectionCard userId={USER} />);
    await waitFor(() => expect(fetchMock).toHaveBeenCalled());
    await waitFor(() => expect(screen.queryByTestId('spotify-state')).toBeNull());
    expect(screen.queryByRole('button', { name: 'Connect Spotify' })).toBeNull();
  });

  it('lists the Spotify podcasts and toasts the outcome of Refresh from job:status', async () => {
    const connected = status({ connected: true, spotifyId: 'sp1', lastSpotifySync: '2026-01-01T10:00:00.000Z' });
    let jobs = 0;
    mockFetch((url, init) => {
      if (url === `/api/users/${USER}/spotify`) return jsonResponse(connected);
      if (url === `/api/users/${USER}/podcasts`) {
        return jsonResponse([entry(1, 'Show A'), entry(2, 'Show B'), entry(3, 'By hand', 'manual')]);
      }
      if (url === `/api/users/${USER}/spotify/sync` && init.method === 'POST') {
        jobs += 1;
        return jsonResponse({ jobId: `job-${jobs}` }, { status: 202 });
      }
      return jsonResponse({ error: 'not_found', message: 'nope' }, { status: 404 });
    });
    renderWithProviders(<SpotifyConnectionCard userId={USER} />);
    const list = await screen.findByTestId('spotify-podcasts');
    expect([...list.querySelectorAll('li')].map((li) => li.textContent)).toEqual(['Show A', 'Show B']);
    screen.getByText('2 podcasts from Spotify');
    expect(screen.getByTestId('spotify-state').textContent).toMatch(/^Connected as sp1 · Last sync /);

    fireEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(jobs).toBe(1));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Refresh' }).hasAttribute('disabled')).toBe(true));
    serverSends({ jobId: 'job-1', name: 'podcasts.sync', state: 'completed', progress: 100 });
    await screen.findByText('Spotify Refreshed');
    screen.getByText('Your podcast data has been updated.');

    fireEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(jobs).toBe(2));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Refresh' }).hasAttribute('disabled')).toBe(true));
    serverSends({
      jobId: 'job-2',
      name: 'podcasts.sync',
      state: 'failed',
      progress: 0,
      error: { code: 'unknown', message: 'boom' },
    });
    await screen.findByText('Failed to refresh Spotify data. Please try again.');

    // Spotify refused the token: the toast says what to do, from the error code alone.
    fireEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    await waitFor(() => expect(jobs).toBe(3));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Refresh' }).hasAttribute('disabled')).toBe(true));
    serverSends({
      jobId: 'job-3',
      name: 'podcasts.sync',
      state: 'failed',
      progress: 0,
      error: { code: 'spotify_reconnect', message: 'Spotify refused the renewed token: invalid_grant' },
    });
    await screen.findByText(JOB_ERROR_TEXTS['podcasts.sync'].spotify_reconnect);
  });

  it('a refused sync shows the failure toast', async () => {
    mockFetch((url, init) => {
      if (url === `/api/users/${USER}/spotify`) return jsonResponse(status({ connected: true, lastSpotifySync: null }));
      if (url === `/api/users/${USER}/podcasts`) return jsonResponse([]);
      if (init.method === 'POST')
        return jsonResponse({ error: 'conflict', message: 'Connect Spotify first.' }, { status: 409 });
      return jsonResponse({ error: 'not_found', message: 'nope' }, { status: 404 });
    });
    renderWithProviders(<SpotifyConnectionCard userId={USER} />);
    await screen.findByText('Importing your podcasts...');
    fireEvent.click(screen.getByRole('button', { name: 'Refresh' }));
    await screen.findByText('Failed to refresh Spotify data. Please try again.');
  });
});
