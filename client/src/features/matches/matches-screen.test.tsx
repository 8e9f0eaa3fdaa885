import type { Intent } from '@shared/constants';
import type { MatchView } from '@shared/schemas/matches';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { useState } from 'react';
import { createMemoryRouter, RouterProvider, useLocation } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { AppProviders } from '@/app/providers';
import { createQueryClient } from '@/lib/query-client';
import { makeMatchView } from '@/test/fixtures';
import { type FetchHandler, jsonResponse, mockFetch } from '@/test/utils';
import { sortMatches } from './match-queries';
import { MatchesScreen } from './matches-screen';

const ME = 7;
const LIST_URL = `/api/users/${ME}/matches?intent=romantic`;

let nextId = 1;
function makeMatch(overrides: Partial<MatchView> & { name?: string; userId?: number } = {}): MatchView {
  const { name = 'Sam', userId, ...rest } = overrides;
  const id = rest.id ?? nextId++;
  return makeMatchView({
    viewerId: ME,
    otherId: userId ?? 100 + id,
    name,
    id,
    matchPercentage: 50,
    createdAt: '2026-01-01T00:00:00.000Z',
    ...rest,
  });
}

function Where() {
  const location = useLocation();
  return <p data-testid="location">{location.pathname}</p>;
}

function Screen() {
  const [intent, setIntent] = useState<Intent>('romantic');
  return <MatchesScreen userId={ME} intent={intent} onIntentChange={setIntent} />;
}

function renderScreen() {
  const router = createMemoryRouter(
    [
      { path: '/matches', element: <Screen /> },
      { path: '*', element: <Where /> },
    ],
    { initialEntries: ['/matches'] },
  );
  const queryClient = createQueryClient();
  render(
    <AppProviders queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { router, queryClient };
}

/** Serves the list from `state.matches`; other calls go to `extra`. */
function serve(state: { matches: MatchView[] }, extra: FetchHandler = () => jsonResponse({}, { status: 404 })) {
  return mockFetch((url, init) => {
    if (url === LIST_URL && (init.method ?? 'GET') === 'GET') return jsonResponse(state.matches);
    return extra(url, init);
  });
}

function cardNames() {
  return screen.getAllByTestId('match-card').map((card) =>
    within(card)
      .getByRole('button', { name: /, open profile$/ })
      .textContent?.replace(', open profile', ''),
  );
}

function card(name: string) {
  const found = screen.getAllByTestId('match-card').find((c) => c.textContent?.includes(name));
  if (!found) throw new Error(`no card for ${name}`);
  return found;
}

function callsTo(fetchMock: ReturnType<typeof mockFetch>, method: string, url: string) {
  return fetchMock.mock.calls.filter(([u, init]) => u === url && init?.method === method);
}

function bodyOf(call: [RequestInfo | URL, RequestInit?] | undefined) {
  return JSON.parse(String(call?.[1]?.body));
}

describe('sortMatches', () => {
  it('puts favourites first, then the newest conversation (its last message, else when it was made)', () => {
    const at = (minute: number) => `2026-01-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
    const said = (minute: number) => ({ senderId: 9, text: 'hi', createdAt: at(minute) });
    const sorted = sortMatches([
      makeMatch({ name: 'Quiet', id: 1, matchPercentage: 99, createdAt: at(1) }),
      makeMatch({ name: 'FavOld', id: 2, isFavorite: true, createdAt: at(2) }),
      makeMatch({ name: 'Talking', id: 3, matchPercentage: 10, createdAt: at(0), lastMessage: said(30) }),
      makeMatch({ name: 'FavNew', id: 4, isFavorite: true, createdAt: at(0), lastMessage: said(20) }),
      makeMatch({ name: 'Fresh', id: 5, createdAt: at(10) }),
    ]);
    expect(sorted.map((m) => m.matchedUser.displayName)).toEqual(['FavNew', 'FavOld', 'Talking', 'Fresh', 'Quiet']);
  });
});

describe('MatchesScreen', () => {
  it('shows names by the display-name rule: emoji and dingbats stripped, as on the feed', async () => {
    serve({ matches: [makeMatch({ name: 'Zoe 🌸\uE000', id: 1 }), makeMatch({ name: '❀ 🎧', id: 2 })] });
    renderScreen();
    await screen.findAllByTestId('match-card');
    expect(cardNames().sort()).toEqual(['Listener 50% match', 'Zoe 50% match']);
    screen.getByRole('button', { name: 'Message Zoe' });
  });

  it('shows skeleton sections while loading, then the sorted grid', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const matches = [
      makeMatch({ name: 'Low', matchPercentage: 10 }),
      makeMatch({ name: 'High', matchPercentage: 90 }),
      makeMatch({ name: 'Fav', matchPercentage: 30, isFavorite: true }),
    ];
    mockFetch((url) => (url === LIST_URL ? gate.then(() => jsonResponse(matches)) : jsonResponse({}, { status: 404 })));
    renderScreen();
    expect(await screen.findByRole('heading', { name: 'New Matches' })).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Conversations' })).toBeTruthy();
    expect(screen.getByRole('heading', { name: 'Matches', level: 1 })).toBeTruthy();
    await act(async () => release());
    await screen.findByRole('list', { name: 'Your matches' });
    expect(screen.queryByRole('heading', { name: 'New Matches' })).toBeNull();
    expect(cardNames()[0]).toContain('Fav');
    expect(cardNames().map((n) => n?.replace(/ \d+% match/, ''))).toEqual(['Fav', 'High', 'Low']);
    expect(screen.getByRole('list', { name: 'Your matches' }).className).toContain('grid-cols-2');
    expect(screen.getByRole('list', { name: 'Your matches' }).className).toContain('md:grid-cols-3');
    expect(screen.getByRole('list', { name: 'Your matches' }).className).toContain('lg:grid-cols-4');
  });

  it('shows the empty state', async () => {
    serve({ matches: [] });
    renderScreen();
    expect(await screen.findByText('No matches yet')).toBeTruthy();
    expect(
      screen.getByText('Start swiping on profiles in the feed to find podcast matches that share your interests.'),
    ).toBeTruthy();
  });

  it('shows the match %, a New badge on unseen matches and the avatar fallback', async () => {
    serve({
      matches: [
        makeMatch({ name: 'Nova', matchPercentage: 82, hasUnreadMessages: true }),
        makeMatch({
          name: 'Pic',
          matchPercentage: 40,
          matchedUser: { ...makeMatch().matchedUser, displayName: 'Pic', profilePicture: '/uploads/p.png' },
        }),
      ],
    });
    renderScreen();
    await screen.findByRole('list', { name: 'Your matches' });
    const nova = card('Nova');
    expect(within(nova).getByText('82% match')).toBeTruthy();
    expect(within(nova).getByText('New')).toBeTruthy();
    expect(nova.querySelector('img')?.getAttribute('src')).toBe('/api/proxy/image?name=Nova');
    const pic = card('Pic');
    expect(within(pic).queryByText('New')).toBeNull();
    expect(pic.querySelector('img')?.getAttribute('src')).toBe('/uploads/p.png');
  });

  it('favouriting sends PUT {isFavorite} and re-sorts at once', async () => {
    const low = makeMatch({ name: 'Low', matchPercentage: 10 });
    const high = makeMatch({ name: 'High', matchPercentage: 90 });
    const state = { matches: [low, high] };
    const fetchMock = serve(state, (url, init) => {
      if (url === `/api/matches/${low.id}` && init.method === 'PUT') {
        state.matches = [{ ...low, isFavorite: true }, high];
        return jsonResponse({ ...low, isFavorite: true });
      }
      return jsonResponse({}, { status: 404 });
    });
    renderScreen();
    await screen.findByRole('list', { name: 'Your matches' });
    expect(cardNames()[0]).toContain('High');
    fireEvent.click(screen.getByRole('button', { name: 'Add Low to favourites' }));
    await waitFor(() => expect(cardNames()[0]).toContain('Low'));
    const star = screen.getByRole('button', { name: 'Remove Low from favourites' });
    expect(star.getAttribute('aria-pressed')).toBe('true');
    await waitFor(() => expect(callsTo(fetchMock, 'PUT', `/api/matches/${low.id}`)).toHaveLength(1));
    expect(bodyOf(callsTo(fetchMock, 'PUT', `/api/matches/${low.id}`)[0])).toEqual({ isFavorite: true });
  });

  it('rolls the favourite back and toasts when the server refuses', async () => {
    const low = makeMatch({ name: 'Low', matchPercentage: 10 });
    const high = makeMatch({ name: 'High', matchPercentage: 90 });
    serve({ matches: [low, high] }, (url, init) =>
      url === `/api/matches/${low.id}` && init.method === 'PUT'
        ? jsonResponse({ error: 'forbidden', message: 'Not your match' }, { status: 403 })
        : jsonResponse({}, { status: 404 }),
    );
    renderScreen();
    await screen.findByRole('list', { name: 'Your matches' });
    fireEvent.click(screen.getByRole('button', { name: 'Add Low to favourites' }));
    expect(await screen.findByText('Could not update favourite')).toBeTruthy();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Add Low to favourites' })).toBeTruthy());
    expect(cardNames()[0]).toContain('High');
  });

  it('opening a card marks it seen and goes to /profile-details/{userId}/{matchId}', async () => {
    const nova = makeMatch({ id: 42, userId: 9, name: 'Nova', hasUnreadMessages: true });
    const fetchMock = serve({ matches: [nova] }, (url, init) =>
      url === '/api/matches/42/seen' && init.method === 'POST'
        ? jsonResponse({ ...nova, hasUnreadMessages: false })
        : jsonResponse({}, { status: 404 }),
    );
    const { router } = renderScreen();
    fireEvent.click(await screen.findByRole('button', { name: /^Nova\b.*, open profile$/ }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/profile-details/9/42'));
    await waitFor(() => expect(callsTo(fetchMock, 'POST', '/api/matches/42/seen')).toHaveLength(1));
  });

  it('the message button marks it seen and goes to /chat/{matchId}', async () => {
    const nova = makeMatch({ id: 43, name: 'Nova', hasUnreadMessages: true });
    const fetchMock = serve({ matches: [nova] }, () => jsonResponse({ ...nova, hasUnreadMessages: false }));
    const { router } = renderScreen();
    fireEvent.click(await screen.findByRole('button', { name: 'Message Nova' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/chat/43'));
    await waitFor(() => expect(callsTo(fetchMock, 'POST', '/api/matches/43/seen')).toHaveLength(1));
  });

  it('does not mark an already seen match again', async () => {
    const seen = makeMatch({ id: 44, name: 'Old' });
    const fetchMock = serve({ matches: [seen] });
    const { router } = renderScreen();
    fireEvent.click(await screen.findByRole('button', { name: 'Message Old' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/chat/44'));
    expect(callsTo(fetchMock, 'POST', '/api/matches/44/seen')).toHaveLength(0);
  });

  it('unmatch asks for confirmation, sends DELETE and removes the card', async () => {
    const sam = makeMatch({ id: 50, name: 'Sam' });
    const state = { matches: [sam, makeMatch({ name: 'Kim' })] };
    const fetchMock = serve(state, (url, init) => {
      if (url === '/api/matches/50' && init.method === 'DELETE') {
        state.matches = state.matches.filter((m) => m.id !== 50);
        return jsonResponse({ ok: true });
      }
      return jsonResponse({}, { status: 404 });
    });
    renderScreen();
    fireEvent.click(await screen.findByRole('button', { name: 'More options for Sam' }));
    const menu = screen.getByRole('dialog', { name: 'Options for Sam' });
    fireEvent.click(within(menu).getByRole('button', { name: 'Unmatch' }));
    const confirm = screen.getByRole('dialog', { name: 'Unmatch Sam?' });
    expect(callsTo(fetchMock, 'DELETE', '/api/matches/50')).toHaveLength(0);
    fireEvent.click(within(confirm).getByRole('button', { name: 'Confirm unmatch' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(callsTo(fetchMock, 'DELETE', '/api/matches/50')).toHaveLength(1);
    await waitFor(() => expect(screen.queryByText('Sam')).toBeNull());
    expect(screen.getByText('Kim')).toBeTruthy();
    expect(screen.getByText('Unmatched')).toBeTruthy();
  });

  it('cancel and Escape close the dialog without a request', async () => {
    const fetchMock = serve({ matches: [makeMatch({ id: 51, name: 'Sam' })] });
    renderScreen();
    const trigger = await screen.findByRole('button', { name: 'More options for Sam' });
    fireEvent.click(trigger);
    fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Block' }));
    fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
    fireEvent.click(trigger);
    fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(fetchMock.mock.calls.filter(([, init]) => init?.method && init.method !== 'GET')).toHaveLength(0);
  });

  it('block explains it hides both, sends POST /api/blocks and removes the card', async () => {
    const sam = makeMatch({ id: 52, userId: 77, name: 'Sam' });
    const state = { matches: [sam] };
    const fetchMock = serve(state, (url, init) => {
      if (url === '/api/blocks' && init.method === 'POST') {
        state.matches = [];
        return jsonResponse({ ok: true });
      }
      return jsonResponse({}, { status: 404 });
    });
    renderScreen();
    fireEvent.click(await screen.findByRole('button', { name: 'More options for Sam' }));
    fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Block' }));
    const confirm = screen.getByRole('dialog', { name: 'Block Sam?' });
    expect(confirm.textContent).toMatch(/hides you both from each other everywhere/);
    fireEvent.click(within(confirm).getByRole('button', { name: 'Confirm block' }));
    await waitFor(() => expect(callsTo(fetchMock, 'POST', '/api/blocks')).toHaveLength(1));
    expect(bodyOf(callsTo(fetchMock, 'POST', '/api/blocks')[0])).toEqual({ userId: 77 });
    expect(await screen.findByText('No matches yet')).toBeTruthy();
  });

  it('report needs a reason and sends it with the details', async () => {
    const sam = makeMatch({ id: 53, userId: 78, name: 'Sam' });
    const fetchMock = serve({ matches: [sam] }, (url, init) =>
      url === '/api/reports' && init.method === 'POST'
        ? jsonResponse({ ok: true }, { status: 201 })
        : jsonResponse({}, { status: 404 }),
    );
    renderScreen();
    fireEvent.click(await screen.findByRole('button', { name: 'More options for Sam' }));
    fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Report' }));
    const dialog = screen.getByRole('dialog', { name: 'Report Sam' });
    const send = within(dialog).getByRole('button', { name: 'Send report' }) as HTMLButtonElement;
    expect(send.disabled).toBe(true);
    for (const label of ['Spam', 'Harassment', 'Inappropriate content', 'Fake profile', 'Something else']) {
      expect(within(dialog).getByRole('radio', { name: label })).toBeTruthy();
    }
    fireEvent.click(within(dialog).getByRole('radio', { name: 'Fake profile' }));
    const details = within(dialog).getByRole('textbox', { name: 'Details (optional)' });
    expect(details.getAttribute('maxlength')).toBe('1000');
    fireEvent.change(details, { target: { value: '  Uses stock photos  ' } });
    fireEvent.click(send);
    await waitFor(() => expect(callsTo(fetchMock, 'POST', '/api/reports')).toHaveLength(1));
    expect(bodyOf(callsTo(fetchMock, 'POST', '/api/reports')[0])).toEqual({
      reportedId: 78,
      matchId: 53,
      reason: 'fake_profile',
      details: 'Uses stock photos',
    });
    expect(await screen.findByText('Report sent')).toBeTruthy();
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.getByText('Sam')).toBeTruthy();
  });

  // Socket events reach the screen through the cache (see realtime-bridge.test.tsx).
  it('follows the cache: a match removed elsewhere leaves the grid and closes its options', async () => {
    const state = { matches: [makeMatch({ id: 60, name: 'First' }), makeMatch({ id: 61, name: 'Second' })] };
    serve(state);
    const { queryClient } = renderScreen();
    fireEvent.click(await screen.findByRole('button', { name: 'More options for First' }));
    expect(screen.getByRole('dialog', { name: 'Options for First' })).toBeTruthy();
    act(() => queryClient.setQueryData<MatchView[]>([LIST_URL], (list) => list?.filter((m) => m.id !== 60)));
    await waitFor(() => expect(screen.queryByText('First')).toBeNull());
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.getByText('Second')).toBeTruthy();
  });

  it('a swipe right over 100 px goes to /, a shorter one does not', async () => {
    serve({ matches: [makeMatch({ name: 'Sam' })] });
    const { router } = renderScreen();
    await screen.findByText('Sam');
    const area = screen.getByTestId('matches-screen');
    const swipe = (dx: number) => {
      fireEvent.pointerDown(area, { clientX: 10, clientY: 100, pointerId: 1, pointerType: 'touch' });
      fireEvent.pointerMove(area, { clientX: 10 + dx, clientY: 105, pointerId: 1, pointerType: 'touch' });
      fireEvent.pointerUp(area, { clientX: 10 + dx, clientY: 105, pointerId: 1, pointerType: 'touch' });
    };
    swipe(80);
    expect(router.state.location.pathname).toBe('/matches');
    swipe(130);
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
  });
});
