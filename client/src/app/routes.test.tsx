import { STORAGE_KEYS } from '@shared/constants';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { selectedIntentAtom } from '@/lib/intent';
import { createQueryClient } from '@/lib/query-client';
import { sessionAtom, writeStoredSession } from '@/lib/session';
import { appStore } from '@/lib/store';
import { makeSelfUser } from '@/test/fixtures';
import { jsonResponse, mockFetch, renderApp } from '@/test/utils';
import { hashTarget } from './hash-redirect';
import { preloadRoute } from './routes';

const user = makeSelfUser({ id: 5, displayName: 'Morgan', username: 'morgan', intent: 'platonic' });

type Override = (url: string, init: RequestInit) => Response | Promise<Response> | undefined;

/** A stored session for user 5; `extra` may answer a request first. */
function signedIn(extra?: Override) {
  writeStoredSession({ token: 'tok-5', userId: 5 });
  return mockFetch((url, init) => {
    const answer = extra?.(url, init);
    if (answer) return answer;
    if (url === '/api/users/5' && (init.method ?? 'GET') === 'GET') return jsonResponse(user);
    return jsonResponse({ error: 'not_found', message: 'Not found' }, { status: 404 });
  });
}

describe('route access', () => {
  it.each(['/', '/profile', '/matches', '/setup', '/chat/3', '/profile-details/4/9'])(
    'an anonymous visit to %s goes to /login',
    async (path) => {
      const { router } = renderApp(path);
      await screen.findByRole('button', { name: 'Login as Developer' });
      expect(router.state.location.pathname).toBe('/login');
    },
  );

  it("shows exactly 'Loading...' while the stored session is validated, then the screen", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    signedIn((url) => (url === '/api/users/5' ? gate.then(() => jsonResponse(user)) : undefined));
    renderApp('/profile');
    // The status bar's live regions are there too, empty while online with no update waiting.
    await screen.findByText('Loading...');
    const statuses = screen.getAllByRole('status').map((status) => status.textContent);
    expect(statuses.filter(Boolean)).toEqual(['Loading...']);
    release();
    expect((await screen.findByTestId('user-display-name')).textContent).toBe('Morgan');
    expect(screen.getByTestId('nav-profile').getAttribute('aria-current')).toBe('page');
  });

  it('sends the bearer token when validating', async () => {
    const fetchMock = signedIn();
    renderApp('/');
    await screen.findByTestId('user-display-name');
    const call = fetchMock.mock.calls.find(([url]) => url === '/api/users/5');
    expect(new Headers(call?.[1]?.headers).get('Authorization')).toBe('Bearer tok-5');
  });

  it('a 401 while validating clears storage and goes to /login', async () => {
    writeStoredSession({ token: 'stale', userId: 5 });
    mockFetch(() => jsonResponse({ error: 'unauthorized', message: 'Session expired' }, { status: 401 }));
    const { router } = renderApp('/matches');
    await screen.findByRole('button', { name: 'Login as Developer' });
    expect(router.state.location.pathname).toBe('/login');
    expect(localStorage.getItem(STORAGE_KEYS.token)).toBeNull();
    expect(sessionStorage.getItem(STORAGE_KEYS.userId)).toBeNull();
  });

  it('a non-numeric stored user id is dropped and the visitor goes to /login', async () => {
    localStorage.setItem(STORAGE_KEYS.token, 'tok');
    localStorage.setItem(STORAGE_KEYS.userId, 'abc');
    const fetchMock = mockFetch(() => jsonResponse({}));
    const { router } = renderApp('/');
    await screen.findByRole('button', { name: 'Login as Developer' });
    expect(router.state.location.pathname).toBe('/login');
    expect(localStorage.getItem(STORAGE_KEYS.token)).toBeNull();
    // Nothing asked with the dropped session; the login screen asks only what sign-in methods exist.
    expect(fetchMock.mock.calls.map(([url]) => url)).toEqual(['/api/auth/methods']);
  });

  it('a signed-in visitor of /login goes to /', async () => {
    signedIn();
    const { router } = renderApp('/login');
    await screen.findByTestId('user-display-name');
    expect(router.state.location.pathname).toBe('/');
  });

  it('an unknown path shows the 404 screen to anyone', async () => {
    renderApp('/definitely/not/here');
    await screen.findByText('404 Page Not Found');
  });

  it('/moderation is the 404 screen to someone without a role, and their profile has no way there', async () => {
    const fetchMock = signedIn();
    const { router } = renderApp('/moderation');
    await screen.findByRole('heading', { name: '404 Page Not Found' });
    expect(fetchMock.mock.calls.filter(([url]) => String(url).startsWith('/api/moderation'))).toEqual([]);
    await act(async () => router.navigate('/profile'));
    await screen.findByTestId('user-display-name');
    expect(screen.queryByRole('link', { name: /Moderation/ })).toBeNull();
  });

  it('a moderator reaches /moderation from the profile', async () => {
    const moderator = { ...user, role: 'moderator' as const };
    signedIn((url) => {
      if (url === '/api/users/5') return jsonResponse(moderator);
      if (url === '/api/moderation/queue?state=open') return jsonResponse({ subjects: [] });
      return undefined;
    });
    const { router } = renderApp('/profile');
    fireEvent.click(await screen.findByRole('link', { name: /Moderation/ }));
    await screen.findByRole('heading', { name: 'Moderation', level: 1 });
    expect(router.state.location.pathname).toBe('/moderation');
    await screen.findByText('Nothing to review. The queue is empty.');
    expect(screen.getAllByRole('tab').map((t) => t.textContent)).toEqual(['Queue', 'Appeals']);
  });
});

describe('screens in the layout', () => {
  it('the feed shows the display name, the intent switcher and Feed active', async () => {
    signedIn((url) =>
      url.startsWith('/api/users/5/feed-counts')
        ? jsonResponse({ romantic: 0, platonic: 0, professional: 0 })
        : url.startsWith('/api/users/5/feed')
          ? jsonResponse([])
          : undefined,
    );
    renderApp('/');
    expect((await screen.findByTestId('user-display-name')).textContent).toBe('Morgan');
    expect(screen.getByTestId('nav-feed').getAttribute('aria-current')).toBe('page');
    // The saved intent (platonic) is the current one.
    expect(screen.getByRole('button', { name: 'Social' }).getAttribute('aria-pressed')).toBe('true');
    await screen.findByText('Well, this is awkward.');
  });

  it('changing the intent on the feed stays local', async () => {
    const fetchMock = signedIn();
    renderApp('/');
    fireEvent.click(await screen.findByRole('button', { name: 'Network' }));
    expect(screen.getByRole('button', { name: 'Network' }).getAttribute('aria-pressed')).toBe('true');
    expect(fetchMock.mock.calls.some(([, init]) => init?.method === 'PUT')).toBe(false);
  });

  it('changing the intent on the profile saves it with PUT /api/users/:id', async () => {
    const fetchMock = signedIn((url, init) =>
      url === '/api/users/5' && init.method === 'PUT' ? jsonResponse({ ...user, intent: 'romantic' }) : undefined,
    );
    renderApp('/profile');
    fireEvent.click(await screen.findByRole('button', { name: 'Dating' }));
    await waitFor(() => expect(fetchMock.mock.calls.some(([, init]) => init?.method === 'PUT')).toBe(true));
    const put = fetchMock.mock.calls.find(([, init]) => init?.method === 'PUT');
    expect(put?.[1]?.body).toBe('{"intent":"romantic"}');
    expect(screen.getByRole('button', { name: 'Dating' }).getAttribute('aria-pressed')).toBe('true');
  });

  it('a failed intent save reverts and shows a toast', async () => {
    signedIn((url, init) =>
      url === '/api/users/5' && init.method === 'PUT'
        ? jsonResponse({ error: 'forbidden', message: 'Nope' }, { status: 403 })
        : undefined,
    );
    renderApp('/profile');
    fireEvent.click(await screen.findByRole('button', { name: 'Network' }));
    await screen.findByText('Error updating profile');
    expect(screen.getByRole('button', { name: 'Social' }).getAttribute('aria-pressed')).toBe('true');
  });

  it('Log out calls the server, clears storage and returns to /login', async () => {
    const fetchMock = signedIn((url) => (url === '/api/auth/logout' ? jsonResponse({ ok: true }) : undefined));
    const { router } = renderApp('/profile');
    fireEvent.click(await screen.findByRole('button', { name: 'Log out' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(fetchMock.mock.calls.some(([url, init]) => url === '/api/auth/logout' && init?.method === 'POST')).toBe(
      true,
    );
    expect(localStorage.getItem(STORAGE_KEYS.token)).toBeNull();
    expect(appStore.get(sessionAtom)).toBeNull();
    await screen.findByRole('button', { name: 'Login as Developer' });
  });

  it('matches and profile details show Matches active', async () => {
    signedIn();
    const { router } = renderApp('/matches');
    await screen.findByTestId('matches-screen');
    expect(screen.getByTestId('nav-matches').getAttribute('aria-current')).toBe('page');
    await router.navigate('/profile-details/12/3');
    await screen.findByRole('heading', { name: 'Profile Not Found' });
    expect(screen.getByTestId('nav-matches').getAttribute('aria-current')).toBe('page');
  });

  it('a non-numeric matchedUserId redirects to /matches', async () => {
    signedIn();
    const { router } = renderApp('/profile-details/abc/3');
    await screen.findByTestId('matches-screen');
    expect(router.state.location.pathname).toBe('/matches');
  });

  it('bottom navigation moves between the tabs', async () => {
    signedIn();
    const { router } = renderApp('/');
    fireEvent.click(await screen.findByTestId('nav-matches'));
    await screen.findByTestId('matches-screen');
    fireEvent.click(screen.getByTestId('nav-profile'));
    await screen.findByRole('button', { name: 'Log out' });
    expect(router.state.location.pathname).toBe('/profile');
    expect(screen.getByTestId('nav-profile').getAttribute('aria-current')).toBe('page');
  });
});

describe('shared-link hash', () => {
  it('parses matchedUserId, matchId and intent', () => {
    expect(hashTarget('#matchedUserId=12&matchId=3&intent=platonic')).toEqual({
      path: '/profile-details/12/3',
      intent: 'platonic',
    });
    expect(hashTarget('#matchedUserId=12')).toEqual({ path: '/profile-details/12', intent: null });
    expect(hashTarget('#matchedUserId=12&intent=bogus')).toEqual({ path: '/profile-details/12', intent: null });
    expect(hashTarget('#terms')).toBeNull();
    expect(hashTarget('')).toBeNull();
  });

  it('redirects to the profile details and clears the hash', async () => {
    signedIn();
    const { router } = renderApp('/#matchedUserId=12&matchId=3&intent=professional');
    await screen.findByRole('heading', { name: 'Profile Not Found' });
    expect(router.state.location.pathname).toBe('/profile-details/12/3');
    expect(router.state.location.hash).toBe('');
    expect(appStore.get(selectedIntentAtom)).toBe('professional');
  });
});

describe('preloadRoute', () => {
  it("asks for the feed's first data with a session, in the intent the feed opens in", async () => {
    writeStoredSession({ token: 'tok-5', userId: 5 });
    appStore.set(selectedIntentAtom, 'professional');
    const fetchMock = mockFetch(() => jsonResponse([]));
    const queryClient = createQueryClient();
    preloadRoute('/', { queryClient, userId: 5 });
    await waitFor(() =>
      expect(fetchMock.mock.calls.map(([url]) => String(url)).sort()).toEqual([
        '/api/users/5/feed-counts',
        '/api/users/5/feed?intent=professional',
      ]),
    );
  });

  it('asks for nothing on a signed-in route without a session', async () => {
    const fetchMock = mockFetch(() => jsonResponse([]));
    preloadRoute('/', null);
    preloadRoute('/login', null);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fetchMock).not.toHaveBeenCalled();
  });
});

describe('setup guard', () => {
  const fresh = makeSelfUser({ id: 5, displayName: 'Newbie', username: 'newbie', setupComplete: false, setupStep: 1 });
  /** User 5 signed in, not set up yet (at step 2 unless `setupStep` says otherwise). */
  const signedInFresh = (setupStep = fresh.setupStep) =>
    signedIn((url, init) =>
      url === '/api/users/5' && (init.method ?? 'GET') === 'GET'
        ? jsonResponse({ ...fresh, setupStep })
        : url === '/api/users/5/podcasts'
          ? jsonResponse([])
          : undefined,
    );

  it.each(['/', '/profile', '/matches', '/profile-details/4/9'])(
    'a person who has not completed setup opening %s goes to /setup, at their saved step',
    async (path) => {
      signedInFresh();
      const { router } = renderApp(path);
      await screen.findByRole('heading', { level: 2, name: 'Profile Info' });
      expect(router.state.location.pathname).toBe('/setup');
    },
  );

  it('the Spotify connection coming back to /profile reaches the wizard, which claims it once', async () => {
    const claims: unknown[] = [];
    signedIn((url, init) => {
      if (url === '/api/users/5' && (init.method ?? 'GET') === 'GET') return jsonResponse({ ...fresh, setupStep: 3 });
      if (url === '/api/users/5/podcasts') return jsonResponse([]);
      if (url === '/api/spotify/connect/finish' && init.method === 'POST') {
        claims.push(JSON.parse(String(init.body)));
        return jsonResponse({ available: true, connected: true, spotifyId: 'sp1', lastSpotifySync: null });
      }
      return undefined;
    });
    const { router } = renderApp('/profile?spotify_connect=one-time-code');
    await screen.findByText('Spotify Connected');
    expect(claims).toEqual([{ code: 'one-time-code' }]);
    expect(router.state.location.search).toBe('');
    screen.getByRole('heading', { level: 2, name: 'Streaming connection' });
    expect(router.state.location.pathname).toBe('/setup');
  });

  it('a chat stays open to a person who has not completed setup', async () => {
    signedInFresh();
    const { router } = renderApp('/chat/3');
    await screen.findByText('Conversation not found');
    expect(router.state.location.pathname).toBe('/chat/3');
  });

  it('logging in as a new person leads to /setup', async () => {
    mockFetch((url, init) => {
      if (url === '/api/auth/dev-login' && init.method === 'POST') return jsonResponse({ token: 'tok-5', user: fresh });
      if (url === '/api/users/5') return jsonResponse(fresh);
      return jsonResponse({ error: 'not_found', message: 'Not found' }, { status: 404 });
    });
    const { router } = renderApp('/login');
    fireEvent.change(await screen.findByLabelText('Or choose any username'), { target: { value: 'newbie' } });
    fireEvent.click(screen.getByRole('button', { name: 'Login as Developer' }));
    await screen.findByRole('heading', { level: 2, name: 'Profile Info' });
    expect(router.state.location.pathname).toBe('/setup');
  });
});
