import type { Intent } from '@shared/constants';
import type { FeedItem } from '@shared/schemas/feed';
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { AppProviders } from '@/app/providers';
import { createQueryClient } from '@/lib/query-client';
import { startSession } from '@/lib/session';
import { appStore } from '@/lib/store';
import { toastsAtom } from '@/lib/toast';
import { makeMatchView, makeSelfUser } from '@/test/fixtures';
import { jsonResponse, mockFetch } from '@/test/utils';
import { coachMarkStorageKey } from './feed-coach-mark';
import { FeedScreen } from './feed-screen';

function item(id: number, displayName: string, matchPercentage: number): FeedItem {
  return {
    id,
    displayName,
    profilePicture: null,
    intent: 'romantic',
    tagline: null,
    romanticTagline: `Tagline of ${id}`,
    platonicTagline: null,
    professionalTagline: null,
    videoIntroUrl: null,
    matchPercentage,
    profile: null,
    sharedPodcasts: [{ id: 1, name: 'Radiolab', creator: 'WNYC', imageUrl: null }],
  };
}

const people = [item(21, 'Nova 🎧\uE000', 88), item(22, 'Quinn', 64)];
const counts = { romantic: 2, platonic: 0, professional: 0 };

/** A like's answer; `instantDemoMatch`: the like was on SPEC's demo user. */
function matchView(user2Id: number, mutual: boolean, instantDemoMatch = false) {
  return {
    ...makeMatchView({ viewerId: 7, otherId: user2Id, id: 500 + user2Id, user2Liked: mutual, isMutualMatch: mutual }),
    instantDemoMatch,
  };
}

type Override = (url: string, init: RequestInit) => Response | undefined;

/** Answers the feed, the counts and the user; `extra` may answer first. */
function serve(extra?: Override, feed: FeedItem[] = people) {
  return mockFetch((url, init) => {
    const answer = extra?.(url, init);
    if (answer) return answer;
    if (url.startsWith('/api/users/7/feed-counts')) return jsonResponse(counts);
    if (url.startsWith('/api/users/7/feed')) return jsonResponse(feed);
    if (url === '/api/users/7') return jsonResponse(makeSelfUser({ matchPreferences: { minMatchPercentage: 50 } }));
    return jsonResponse({ error: 'not_found', message: 'Not found' }, { status: 404 });
  });
}

function renderFeed(onIntentChange: (intent: Intent) => void = () => {}, queryClient = createQueryClient()) {
  const router = createMemoryRouter(
    [
      { path: '/', element: <FeedScreen displayName="Ada" intent="romantic" onIntentChange={onIntentChange} /> },
      { path: '/matches', element: <p>matches page</p> },
      { path: '/profile', element: <p>profile page</p> },
      { path: '/profile-details/:id', element: <p>details page</p> },
    ],
    { initialEntries: ['/'] },
  );
  render(
    <AppProviders queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return router;
}

function bodyOf(fetchMock: ReturnType<typeof serve>, path: string) {
  const call = fetchMock.mock.calls.find(([url, init]) => url === path && init?.method === 'POST');
  return call ? JSON.parse(String(call[1]?.body)) : undefined;
}

describe('FeedScreen', () => {
  beforeEach(() => {
    startSession({ token: 'tok-7', userId: 7 });
    // The one-time guide was dismissed (its own test below).
    localStorage.setItem(coachMarkStorageKey(7), 'done');
  });

  it('hides the action buttons while the first-time guide is open, so a tap meant for it likes nobody', async () => {
    localStorage.removeItem(coachMarkStorageKey(7));
    const fetchMock = serve();
    renderFeed();
    await screen.findByTestId('feed-coach-mark');
    expect(screen.getByTestId('feed-name').textContent).toBe('Nova');
    expect(screen.queryByRole('button', { name: 'Like' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Got it' }));
    expect(screen.queryByTestId('feed-coach-mark')).toBeNull();
    screen.getByRole('button', { name: 'Like' });
    expect(bodyOf(fetchMock, '/api/matches')).toBeUndefined();
  });

  it('shows one card: the cleaned name, tagline, match % and the ring aimed at it', async () => {
    serve();
    renderFeed();
    expect((await screen.findByTestId('feed-name')).textContent).toBe('Nova');
    expect(screen.getByTestId('feed-percentage').textContent).toBe('88%');
    screen.getByText('Tagline of 21');
    expect(screen.getByTestId('match-ring').getAttribute('data-target')).toBe('0.88');
    screen.getByText('Why you match · 1 shared show');
    screen.getByRole('button', { name: 'Like' });
    screen.getByRole('button', { name: 'Pass' });
    screen.getByRole('button', { name: 'Message' });
    expect(screen.getByTestId('user-display-name').textContent).toBe('Ada');
  });

  it('plays the intent video muted in a loop with the picture as poster', async () => {
    const withVideo = {
      ...item(23, 'Vid', 70),
      profilePicture: '/uploads/p.jpg',
      profile: {
        displayName: null,
        tagline: null,
        profilePicture: null,
        videoIntroUrl: '/uploads/v.mp4',
        videoPosterUrl: null,
      },
    };
    serve(undefined, [withVideo]);
    renderFeed();
    const video = (await screen.findByTestId('feed-video')) as HTMLVideoElement;
    expect(video.getAttribute('src')).toBe('/uploads/v.mp4');
    expect(video.getAttribute('poster')).toBe('/uploads/p.jpg');
    expect(video.muted && video.loop && video.autoplay).toBe(true);
    expect(video.hasAttribute('playsinline')).toBe(true);
    fireEvent.error(video);
    expect((await screen.findByTestId('feed-picture')).getAttribute('src')).toBe('/uploads/p.jpg');
  });

  it('shows the keyboard shortcuts once the keyboard is used, and hides them on a pointer', async () => {
    serve();
    renderFeed();
    await screen.findByText('Nova');
    expect(screen.queryByTestId('keyboard-hint')).toBeNull();
    fireEvent.keyDown(window, { key: 'Tab' });
    expect((await screen.findByTestId('keyboard-hint')).textContent).toMatch(/next.*previous.*like.*pass.*Z.*undo/);
    // A click made with Enter (detail 0) is still the keyboard; a pointer's click (detail 1) hides them,
    // after the click (a press that moved its target away would click nothing).
    fireEvent.click(window, { detail: 0 });
    expect(screen.getByTestId('keyboard-hint')).not.toBeNull();
    fireEvent.pointerDown(window);
    expect(screen.getByTestId('keyboard-hint')).not.toBeNull();
    fireEvent.click(window, { detail: 1 });
    await waitFor(() => expect(screen.queryByTestId('keyboard-hint')).toBeNull());
  });

  it('counts the shared shows in "Why you match"', async () => {
    const shows = [1, 2, 3].map((id) => ({ id, name: `Show ${id}`, creator: null, imageUrl: null }));
    serve(undefined, [{ ...item(31, 'Ivy', 70), sharedPodcasts: shows }]);
    renderFeed();
    await screen.findByText('Ivy');
    expect(screen.getByText('Why you match · 3 shared shows')).toBeTruthy();
    const shared = within(screen.getByRole('list', { name: 'Shared shows' }));
    expect(shared.getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Show 1', 'Show 2', 'Show 3']);
  });

  it('Arrow Up shows the next card and wraps around; Arrow Down the previous', async () => {
    serve();
    renderFeed();
    await screen.findByText('Nova');
    fireEvent.keyDown(window, { key: 'ArrowUp' });
    expect(screen.getByTestId('feed-name').textContent).toBe('Quinn');
    fireEvent.keyDown(window, { key: 'ArrowUp' });
    expect(screen.getByTestId('feed-name').textContent).toBe('Nova');
    fireEvent.keyDown(window, { key: 'ArrowDown' });
    expect(screen.getByTestId('feed-name').textContent).toBe('Quinn');
  });

  it('keeps the person on screen when the feed is refetched with new scores', async () => {
    let feed = people;
    mockFetch((url) => {
      if (url.startsWith('/api/users/7/feed-counts')) return jsonResponse(counts);
      if (url.startsWith('/api/users/7/feed')) return jsonResponse(feed);
      if (url === '/api/users/7') return jsonResponse(makeSelfUser());
      return jsonResponse({ error: 'not_found', message: 'Not found' }, { status: 404 });
    });
    const queryClient = createQueryClient();
    renderFeed(() => {}, queryClient);
    await screen.findByText('Nova');
    fireEvent.keyDown(window, { key: 'ArrowUp' });
    expect(screen.getByTestId('feed-name').textContent).toBe('Quinn');
    // A full recompute reordered the list and brought someone new: Quinn stays in view.
    feed = [item(23, 'Zed', 91), item(21, 'Nova', 80), item(22, 'Quinn', 70)];
    await act(() => queryClient.invalidateQueries());
    await waitFor(() => expect(screen.getByTestId('feed-percentage').textContent).toBe('70%'));
    expect(screen.getByTestId('feed-name').textContent).toBe('Quinn');
    fireEvent.keyDown(window, { key: 'ArrowUp' });
    expect(screen.getByTestId('feed-name').textContent).toBe('Zed');
  });

  it('Like posts the match with the liker flag and removes the card', async () => {
    const fetchMock = serve((url) => (url === '/api/matches' ? jsonResponse(matchView(21, false)) : undefined));
    renderFeed();
    fireEvent.click(await screen.findByRole('button', { name: 'Like' }));
    await waitFor(() => expect(screen.getByTestId('feed-name').textContent).toBe('Quinn'));
    expect(bodyOf(fetchMock, '/api/matches')).toEqual({
      user1Id: 7,
      user2Id: 21,
      intent: 'romantic',
      user1Liked: true,
      user2Liked: false,
      matchPercentage: 88,
    });
    expect(appStore.get(toastsAtom)).toEqual([]);
  });

  it('P passes with user1Liked false', async () => {
    const fetchMock = serve((url) =>
      url === '/api/matches' ? jsonResponse({ ...matchView(21, false), user1Liked: false }) : undefined,
    );
    renderFeed();
    await screen.findByText('Nova');
    fireEvent.keyDown(window, { key: 'p' });
    await waitFor(() => expect(screen.getByTestId('feed-name').textContent).toBe('Quinn'));
    expect(bodyOf(fetchMock, '/api/matches')?.user1Liked).toBe(false);
  });

  it("a like on SPEC's demo user announces the match moment once and opens /matches", async () => {
    serve((url) => (url === '/api/matches' ? jsonResponse(matchView(21, true, true)) : undefined));
    const router = renderFeed();
    fireEvent.click(await screen.findByRole('button', { name: 'Like' }));
    await screen.findByText('matches page');
    expect(router.state.location.pathname).toBe('/matches');
  });

  it('any other mutual like announces the match moment and stays on the feed, with the next card', async () => {
    serve((url) => (url === '/api/matches' ? jsonResponse(matchView(21, true)) : undefined));
    const router = renderFeed();
    fireEvent.click(await screen.findByRole('button', { name: 'Like' }));
    await waitFor(() => expect(screen.getByTestId('feed-name').textContent).toBe('Quinn'));
    expect(router.state.location.pathname).toBe('/');
    // The match moment itself is the app's (match-moment tests, e2e); the feed announces it.
    expect(screen.getByText(/It's a match with Nova/)).not.toBeNull();
    expect(appStore.get(toastsAtom)).toEqual([]);
  });

  it('undoes the last pass with the Undo button or Z: the person is back in front, erased on the server', async () => {
    const fetchMock = serve((url) => {
      if (url === '/api/matches') return jsonResponse({ ...matchView(21, false), user1Liked: false });
      if (url === '/api/matches/undo-pass') return jsonResponse({ ok: true });
      return undefined;
    });
    renderFeed();
    await screen.findByText('Nova');
    expect(screen.queryByRole('button', { name: 'Undo' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Pass' }));
    await waitFor(() => expect(screen.getByTestId('feed-name').textContent).toBe('Quinn'));
    expect(screen.getByTestId('undo-pass').textContent).toContain('Passed Nova');
    fireEvent.click(screen.getByRole('button', { name: 'Undo' }));
    await waitFor(() => expect(screen.getByTestId('feed-name').textContent).toBe('Nova'));
    expect(bodyOf(fetchMock, '/api/matches/undo-pass')).toEqual({ userId: 21, intent: 'romantic' });
    expect(screen.queryByTestId('undo-pass')).toBeNull();

    // The keyboard: P passes, Z takes it back.
    fireEvent.keyDown(window, { key: 'p' });
    await waitFor(() => expect(screen.getByTestId('feed-name').textContent).toBe('Quinn'));
    fireEvent.keyDown(window, { key: 'z' });
    await waitFor(() => expect(screen.getByTestId('feed-name').textContent).toBe('Nova'));
    expect(fetchMock.mock.calls.filter(([url]) => url === '/api/matches/undo-pass')).toHaveLength(2);
  });

  it('offers no undo after a like, and Z does nothing then', async () => {
    const fetchMock = serve((url) => (url === '/api/matches' ? jsonResponse(matchView(21, false)) : undefined));
    renderFeed();
    fireEvent.click(await screen.findByRole('button', { name: 'Like' }));
    await waitFor(() => expect(screen.getByTestId('feed-name').textContent).toBe('Quinn'));
    expect(screen.queryByTestId('undo-pass')).toBeNull();
    fireEvent.keyDown(window, { key: 'z' });
    expect(fetchMock.mock.calls.some(([url]) => url === '/api/matches/undo-pass')).toBe(false);
  });

  it('a failed match action shows the error toast', async () => {
    serve((url) =>
      url === '/api/matches' ? jsonResponse({ error: 'conflict', message: 'Blocked' }, { status: 409 }) : undefined,
    );
    renderFeed();
    fireEvent.click(await screen.findByRole('button', { name: 'Like' }));
    await waitFor(() => expect(appStore.get(toastsAtom)[0]?.title).toBe('Error'));
    expect(appStore.get(toastsAtom)[0]?.description).toBe('Blocked');
    expect(screen.getByTestId('feed-name').textContent).toBe('Nova');
  });

  it('tapping the name opens the profile details', async () => {
    serve();
    const router = renderFeed();
    fireEvent.click(await screen.findByText('Nova'));
    await screen.findByText('details page');
    expect(router.state.location.pathname).toBe('/profile-details/21');
  });

  it('shows the error state with the fallback message', async () => {
    serve((url) => (url.startsWith('/api/users/7/feed?') ? new Response('', { status: 500 }) : undefined));
    renderFeed();
    await screen.findByText('Oops, something went wrong');
    screen.getByText('Failed to load profiles. Please try again.');
  });

  it('the empty state offers Add podcasts (to /profile) and adjusts the minimum match percentage inline', async () => {
    const fetchMock = serve(
      (url, init) =>
        url === '/api/users/7' && init.method === 'PUT'
          ? jsonResponse(makeSelfUser({ matchPreferences: { minMatchPercentage: 35 } }))
          : undefined,
      [],
    );
    const router = renderFeed();
    await screen.findByText('Well, this is awkward.');
    await screen.findByText('Your minimum match is 50%.');
    const adjust = screen.getByRole('button', { name: 'Adjust minimum match' });
    expect(adjust.getAttribute('aria-expanded')).toBe('false');
    await act(async () => fireEvent.click(adjust));
    expect(adjust.getAttribute('aria-expanded')).toBe('true');
    const slider = screen.getByLabelText('Minimum match percentage');
    expect((slider as HTMLInputElement).value).toBe('50');
    const save = screen.getByRole('button', { name: 'Save minimum' });
    expect((save as HTMLButtonElement).disabled).toBe(true);
    await act(async () => fireEvent.change(slider, { target: { value: '35' } }));
    await act(async () => fireEvent.click(save));
    await waitFor(() =>
      expect(fetchMock.mock.calls.some(([url, init]) => url === '/api/users/7' && init?.method === 'PUT')).toBe(true),
    );
    const put = fetchMock.mock.calls.find(([, init]) => init?.method === 'PUT');
    expect(JSON.parse(String(put?.[1]?.body))).toEqual({ matchPreferences: { minMatchPercentage: 35 } });
    await screen.findByText('Your minimum match is 35%.');

    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Add podcasts' })));
    await waitFor(() => expect(router.state.location.pathname).toBe('/profile'));
  });

  it('greets a returning person with "Welcome back" and a new one with "Welcome"', async () => {
    serve();
    renderFeed();
    await waitFor(() => expect(screen.getByTestId('feed-greeting').textContent).toBe('Welcome back,'));
    cleanup();

    serve((url, init) =>
      url === '/api/users/7' && init.method !== 'PUT'
        ? jsonResponse(makeSelfUser({ createdAt: new Date().toISOString() }))
        : undefined,
    );
    renderFeed();
    await waitFor(() => expect(screen.getByTestId('feed-greeting').textContent).toBe('Welcome,'));
    screen.getByText(/Let's find your Crush Buddy/);
  });

  it('switching the intent changes it at once and saves it on the server; a failed save switches back', async () => {
    const onIntentChange = vi.fn();
    let fail = false;
    const fetchMock = serve((url, init) => {
      if (url !== '/api/users/7' || init.method !== 'PUT') return undefined;
      return fail
        ? jsonResponse({ error: 'server_error', message: 'Nope' }, { status: 500 })
        : jsonResponse(makeSelfUser({ intent: 'professional' }));
    });
    renderFeed(onIntentChange);
    await screen.findByTestId('feed-name');
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Network' })));
    expect(onIntentChange).toHaveBeenCalledWith('professional');
    await waitFor(() => {
      const put = fetchMock.mock.calls.find(([url, init]) => url === '/api/users/7' && init?.method === 'PUT');
      expect(JSON.parse(String(put?.[1]?.body))).toEqual({ intent: 'professional' });
    });

    fail = true;
    onIntentChange.mockClear();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Social' })));
    await waitFor(() => expect(onIntentChange).toHaveBeenLastCalledWith('romantic'));
    expect(onIntentChange).toHaveBeenNthCalledWith(1, 'platonic');
  });
});
