import { CONNECTION_TEXTS, LIMITS, STORAGE_KEYS, TIMING } from '@shared/constants';
import type { BadgeCounts, JobStatusEvent } from '@shared/events';
import type { MatchView } from '@shared/schemas/matches';
import { act, render, screen, waitFor } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type Conversation,
  conversationKey,
  getConversation,
  markChatOpen,
  presenceQuery,
  removedQuery,
  typingQuery,
} from '@/features/chat/conversation-cache';
import { pendingMatchMoments, resetAnnouncedMatches } from '@/features/match-moment';
import { matchesQuery } from '@/features/matches/match-queries';
import { badgesQuery, setBadges } from '@/lib/badges';
import { createQueryClient } from '@/lib/query-client';
import { sessionAtom, startSession } from '@/lib/session';
import { appStore } from '@/lib/store';
import { suspensionAtom } from '@/lib/suspension';
import { toastsAtom } from '@/lib/toast';
import { makeMatchView, makeMessage, makeMessages, makeSelfUser } from '@/test/fixtures';
import { makeNotice } from '@/test/moderation-fixtures';
import { jsonResponse, mockFetch } from '@/test/utils';
import { AppLayout } from './app-layout';
import { AppProviders } from './providers';
import RealtimeBridge, { RESYNC_SPREAD_MS } from './realtime-bridge';

// A stand-in for the socket.io client: records listeners so the test can play server events.
const fake = await vi.hoisted(async () => (await import('@/test/fake-socket')).createFakeSocket());

vi.mock('socket.io-client', () => ({ io: (options: unknown) => fake.io(options) }));

const ME = 7;

function renderBridge({ withNavigation = false } = {}) {
  const queryClient = createQueryClient();
  const bridge = <RealtimeBridge userId={ME} />;
  const router = createMemoryRouter(
    [
      withNavigation
        ? {
            element: (
              <>
                {bridge}
                <AppLayout />
              </>
            ),
            children: [{ path: '/profile', element: <p>profile</p> }],
          }
        : { path: '/profile', element: bridge },
      { path: '/login', element: <p>login</p> },
    ],
    { initialEntries: ['/profile'] },
  );
  const view = render(
    <AppProviders queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { queryClient, router, ...view };
}

function makeMatch(id: number, overrides: Partial<MatchView> = {}): MatchView {
  return makeMatchView({
    viewerId: ME,
    otherId: 100 + id,
    name: `Person ${id}`,
    id,
    intent: 'platonic',
    matchPercentage: 80,
    ...overrides,
  });
}

const cachedIds = (queryClient: ReturnType<typeof createQueryClient>, key: readonly unknown[]) =>
  queryClient.getQueryData<MatchView[]>(key)?.map((m) => m.id);

describe('RealtimeBridge', () => {
  beforeEach(() => {
    fake.reset();
    startSession({ token: 'tok-7', userId: ME });
    resetAnnouncedMatches();
    // Invalidations refetch what is on screen; nothing here needs real answers.
    mockFetch(() => jsonResponse({ error: 'not_found', message: 'nope' }, { status: 404 }));
  });

  it('connects with the stored token and disconnects when unmounted', () => {
    const ioSpy = vi.spyOn(fake, 'io');
    const connect = vi.spyOn(fake.socket, 'connect');
    const disconnect = vi.spyOn(fake.socket, 'disconnect');
    const { unmount } = renderBridge();
    expect(connect).toHaveBeenCalled();
    // The first test of the file creates the tab's socket: same origin, token read at each connect.
    const options = ioSpy.mock.calls[0]?.[0] as { path?: string; auth?: (cb: (data: object) => void) => void };
    expect(options.path).toBe('/socket.io');
    const cb = vi.fn();
    options.auth?.(cb);
    expect(cb).toHaveBeenCalledWith({ token: 'tok-7' });
    unmount();
    expect(disconnect).toHaveBeenCalled();
    for (const event of ['badges:update', 'match:new', 'job:status'])
      expect(fake.listeners.get(event)?.size ?? 0).toBe(0);
  });

  it('drops an invalid event with a warning: nothing reaches the cache', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { queryClient } = renderBridge();
    act(() => fake.emit('user:updated', { ...makeSelfUser({ id: ME }), id: 'seven' }));
    act(() => fake.emit('badges:update', { feed: { romantic: 1 } }));
    act(() => fake.emit('match:new', { id: 5, intent: 'platonic' }));
    expect(queryClient.getQueryData([`/api/users/${ME}`])).toBeUndefined();
    expect(queryClient.getQueryData(badgesQuery(ME).queryKey)).toBeUndefined();
    expect(appStore.get(toastsAtom)).toEqual([]);
    expect(warn).toHaveBeenCalledTimes(3);
    expect(String(warn.mock.calls[0]?.[0])).toContain("'user:updated'");
  });

  it("'badges:update' goes to the query cache, and the bottom navigation shows it", async () => {
    const { queryClient } = renderBridge({ withNavigation: true });
    const counts: BadgeCounts = {
      feed: { romantic: 3, platonic: 0, professional: 0 },
      unreadMatches: { romantic: 2, platonic: 5, professional: 0 },
    };
    act(() => fake.emit('badges:update', counts));
    expect(queryClient.getQueryData(badgesQuery(ME).queryKey)).toEqual(counts);
    // Romantic is the default intent.
    expect((await screen.findByTestId('nav-feed-badge')).textContent).toBe('3');
    expect(screen.getByTestId('nav-matches-badge').textContent).toBe('2');

    act(() => fake.emit('badges:update', { ...counts, unreadMatches: { ...counts.unreadMatches, romantic: 0 } }));
    await waitFor(() => expect(screen.queryByTestId('nav-matches-badge')).toBeNull());

    // 'badges:unread' (after a message or a read) replaces only the unread part.
    act(() => fake.emit('badges:unread', { unreadMatches: { romantic: 4, platonic: 0, professional: 0 } }));
    expect((await screen.findByTestId('nav-matches-badge')).textContent).toBe('4');
    expect(screen.getByTestId('nav-feed-badge').textContent).toBe('3');
  });

  it("'match:new' is handled once: one match moment per match, and the cached list gains it", async () => {
    const { queryClient } = renderBridge();
    const listKey = matchesQuery(ME, 'platonic').queryKey;
    queryClient.setQueryData(listKey, [makeMatch(1)]);
    const invalidate = vi.spyOn(queryClient, 'invalidateQueries');

    act(() => fake.emit('match:new', makeMatch(901)));
    expect(pendingMatchMoments().map((m) => m.id)).toEqual([901]);
    const moment = await screen.findByRole('dialog', { name: "It's a match!" });
    expect(moment.textContent).toContain("It's a sound match!");
    expect(cachedIds(queryClient, listKey)).toEqual([901, 1]);
    expect(invalidate).toHaveBeenCalled();

    // The same match again (another tab's like answer, a replay): no second moment, no duplicate.
    act(() => fake.emit('match:new', makeMatch(901)));
    expect(pendingMatchMoments()).toHaveLength(1);
    expect(cachedIds(queryClient, listKey)).toEqual([901, 1]);
    expect(appStore.get(toastsAtom)).toEqual([]);
  });

  it("'match:removed' takes the match out of every cached list and its single-match entries", () => {
    const { queryClient } = renderBridge();
    const platonic = matchesQuery(ME, 'platonic').queryKey;
    const romantic = matchesQuery(ME, 'romantic').queryKey;
    queryClient.setQueryData(platonic, [makeMatch(1), makeMatch(2)]);
    queryClient.setQueryData(romantic, [makeMatch(3, { intent: 'romantic' })]);
    queryClient.setQueryData(['/api/matches/2'], makeMatch(2));
    queryClient.setQueryData([`/api/users/${ME}/matches/2`], makeMatch(2));

    act(() => fake.emit('match:removed', { matchId: 2, intent: 'platonic' }));
    expect(cachedIds(queryClient, platonic)).toEqual([1]);
    expect(cachedIds(queryClient, romantic)).toEqual([3]);
    expect(queryClient.getQueryData(['/api/matches/2'])).toBeUndefined();
    expect(queryClient.getQueryData([`/api/users/${ME}/matches/2`])).toBeUndefined();
    // Stale, so opening Matches later refetches it too.
    expect(queryClient.getQueryState(platonic)?.isInvalidated).toBe(true);
  });

  it("'match:removed' of a suspended person: gone from Matches, and their chat says it ended", () => {
    const { queryClient } = renderBridge();
    const platonic = matchesQuery(ME, 'platonic').queryKey;
    queryClient.setQueryData(platonic, [makeMatch(1), makeMatch(2)]);
    act(() => fake.emit('match:removed', { matchId: 2, intent: 'platonic', reason: 'suspended' }));
    expect(cachedIds(queryClient, platonic)).toEqual([1]);
    expect(queryClient.getQueryData(removedQuery(2).queryKey)).toBe('suspended');
  });

  it("'moderation:notice' shows the statement of reasons at once, in a dialog named by what happened", async () => {
    renderBridge();
    const notice = makeNotice({ action: { kind: 'warn', endsAt: null } });
    act(() => fake.emit('moderation:notice', { notice, appealToken: null }));
    const dialog = await screen.findByRole('dialog', { name: 'You received a warning' });
    expect(dialog.textContent).toContain('You sent threatening messages to another person.');
    // A warning ends nothing.
    expect(appStore.get(sessionAtom)).toEqual({ token: 'tok-7', userId: ME });
  });

  it("'session:ended' after a suspension's notice: signed out, the statement and its appeal token kept for /login", async () => {
    const { router } = renderBridge();
    const notice = makeNotice();
    await act(async () => fake.emit('moderation:notice', { notice, appealToken: 'live-token-0123456789abcdef' }));
    await act(async () => fake.emit('session:ended', 'suspended'));
    expect(appStore.get(sessionAtom)).toBeNull();
    expect(router.state.location.pathname).toBe('/login');
    expect(appStore.get(suspensionAtom)).toEqual({
      notice,
      appealToken: 'live-token-0123456789abcdef',
      message: null,
      appealSent: false,
    });
    // In this tab's sessionStorage: the navigation or a reload does not lose it.
    expect(sessionStorage.getItem('podmatch.suspension')).toContain('live-token-0123456789abcdef');
  });

  it('a plain logout after a notice keeps no statement for /login', async () => {
    renderBridge();
    const notice = makeNotice({ action: { kind: 'warn', endsAt: null } });
    await act(async () => fake.emit('moderation:notice', { notice, appealToken: null }));
    await act(async () => fake.emit('session:ended', 'logout'));
    expect(appStore.get(sessionAtom)).toBeNull();
    expect(appStore.get(suspensionAtom)).toBeNull();
  });

  it("'job:status' is typed by job: a finished podcasts.sync refreshes the library and Spotify status", () => {
    const { queryClient } = renderBridge();
    const library = [`/api/users/${ME}/podcasts`];
    const spotify = [`/api/users/${ME}/spotify`];
    queryClient.setQueryData(library, []);
    queryClient.setQueryData(spotify, { available: true, connected: true });
    const sync = (state: JobStatusEvent['state']): JobStatusEvent<'podcasts.sync'> => ({
      jobId: '41',
      name: 'podcasts.sync',
      state,
      progress: state === 'completed' ? 100 : 50,
    });

    act(() => fake.emit('job:status', sync('active')));
    expect(queryClient.getQueryState(library)?.isInvalidated).toBe(false);
    // Another job finishing does not touch the library.
    act(() => fake.emit('job:status', { jobId: '1', name: 'avatar.generate', state: 'completed', progress: 100 }));
    expect(queryClient.getQueryState(library)?.isInvalidated).toBe(false);
    act(() => fake.emit('job:status', sync('completed')));
    expect(queryClient.getQueryState(library)?.isInvalidated).toBe(true);
    expect(queryClient.getQueryState(spotify)?.isInvalidated).toBe(true);
  });

  it("'user:updated' replaces the cached user", () => {
    const { queryClient } = renderBridge();
    const user = makeSelfUser({ id: ME, displayName: 'Renamed' });
    act(() => fake.emit('user:updated', user));
    expect(queryClient.getQueryData([`/api/users/${ME}`])).toEqual(user);
  });

  it.each([
    ['session:ended', ['logout']],
    ['connect_error', [new Error('unauthorized')]],
  ] as const)('%s clears the session and goes to /login', async (event, args) => {
    const { router } = renderBridge();
    await act(async () => fake.emit(event, ...args));
    expect(appStore.get(sessionAtom)).toBeNull();
    expect(localStorage.getItem(STORAGE_KEYS.token)).toBeNull();
    expect(router.state.location.pathname).toBe('/login');
  });

  it("'connection:closed' (too many tabs) keeps the session, says why, and does not reconnect", async () => {
    renderBridge();
    act(() => fake.setConnected(true));
    const connect = vi.spyOn(fake.socket, 'connect');
    await act(async () => fake.emit('connection:closed', 'too_many_connections'));
    // socket.io's disconnect by the server ('io server disconnect': it does not reconnect by itself).
    act(() => {
      fake.socket.connected = false;
      fake.emit('disconnect', 'io server disconnect');
    });
    expect(appStore.get(sessionAtom)).toEqual({ token: 'tok-7', userId: ME });
    expect(appStore.get(toastsAtom)[0]).toMatchObject({
      title: CONNECTION_TEXTS.tooManyTitle,
      description: CONNECTION_TEXTS.tooManyBody,
      open: true,
    });
    expect(connect).not.toHaveBeenCalled();
    connect.mockRestore();
  });

  it('other connection errors, and a malformed session:ended, keep the session', async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    renderBridge();
    await act(async () => fake.emit('connect_error', new Error('xhr poll error')));
    await act(async () => fake.emit('session:ended', 'whatever'));
    expect(appStore.get(sessionAtom)).toEqual({ token: 'tok-7', userId: ME });
  });
});

describe('RealtimeBridge: chat', () => {
  const OTHER = 109;
  const listKey = matchesQuery(ME, 'platonic').queryKey;
  const badges = (platonic: number): BadgeCounts => ({
    feed: { romantic: 0, platonic: 0, professional: 0 },
    unreadMatches: { romantic: 0, platonic, professional: 0 },
  });
  const unreadBadge = (queryClient: ReturnType<typeof createQueryClient>) =>
    queryClient.getQueryData<BadgeCounts>(badgesQuery(ME).queryKey)?.unreadMatches.platonic;
  const cachedMatch = (queryClient: ReturnType<typeof createQueryClient>) =>
    queryClient.getQueryData<MatchView[]>(listKey)?.find((m) => m.id === 9);
  const seqsOf = (queryClient: ReturnType<typeof createQueryClient>, matchId: number) =>
    getConversation(queryClient, matchId)?.messages.map((m) => m.seq);

  function seeded() {
    const view = renderBridge();
    view.queryClient.setQueryData(listKey, [makeMatch(9, { lastMessageSeq: 2, readSeq: 2 }), makeMatch(10)]);
    setBadges(view.queryClient, ME, badges(1));
    view.queryClient.setQueryData<Conversation>(conversationKey(9), {
      messages: makeMessages(1, 2, { matchId: 9 }),
      pending: [],
      hasOlder: false,
    });
    return view;
  }

  beforeEach(() => {
    startSession({ token: 'tok-7', userId: ME });
    fake.reset();
  });

  it("'message:new' from the other person: appended once, the match marked unread and counted in the badge", () => {
    const { queryClient } = seeded();
    const message = makeMessage({ matchId: 9, seq: 3, senderId: OTHER });
    act(() => fake.emit('message:new', message));
    act(() => fake.emit('message:new', { ...message }));
    expect(seqsOf(queryClient, 9)).toEqual([1, 2, 3]);
    // Sending counts as reading: the other person has read up to their message.
    expect(cachedMatch(queryClient)).toMatchObject({ hasUnreadMessages: true, lastMessageSeq: 3, otherReadSeq: 3 });
    expect(unreadBadge(queryClient)).toBe(2);

    // Already unread: the badge counts matches, not messages.
    act(() => fake.emit('message:new', makeMessage({ matchId: 9, seq: 4, senderId: OTHER })));
    expect(unreadBadge(queryClient)).toBe(2);
    expect(cachedMatch(queryClient)?.lastMessageSeq).toBe(4);
  });

  it("'message:new' of one's own (another tab), or into the open chat, is not unread", () => {
    const { queryClient } = seeded();
    act(() => fake.emit('message:new', makeMessage({ matchId: 9, seq: 3, senderId: ME })));
    expect(cachedMatch(queryClient)).toMatchObject({ hasUnreadMessages: false, lastMessageSeq: 3, readSeq: 3 });

    const close = markChatOpen(9);
    act(() => fake.emit('message:new', makeMessage({ matchId: 9, seq: 4, senderId: OTHER })));
    close();
    expect(cachedMatch(queryClient)).toMatchObject({ hasUnreadMessages: false, lastMessageSeq: 4 });
    expect(unreadBadge(queryClient)).toBe(1);
    expect(seqsOf(queryClient, 9)).toEqual([1, 2, 3, 4]);
  });

  it("'message:read' by the user (any tab) clears the unread mark; by the other person moves the receipts", () => {
    const { queryClient } = seeded();
    act(() => fake.emit('message:new', makeMessage({ matchId: 9, seq: 3, senderId: OTHER })));
    expect(unreadBadge(queryClient)).toBe(2);

    act(() => fake.emit('message:read', { matchId: 9, userId: ME, seq: 2 }));
    expect(cachedMatch(queryClient)?.hasUnreadMessages).toBe(true);
    act(() => fake.emit('message:read', { matchId: 9, userId: ME, seq: 3 }));
    expect(cachedMatch(queryClient)).toMatchObject({ hasUnreadMessages: false, readSeq: 3 });
    expect(unreadBadge(queryClient)).toBe(1);

    act(() => fake.emit('message:new', makeMessage({ matchId: 9, seq: 4, senderId: ME })));
    expect(cachedMatch(queryClient)?.otherReadSeq).toBe(3);
    act(() => fake.emit('message:read', { matchId: 9, userId: OTHER, seq: 4 }));
    expect(cachedMatch(queryClient)?.otherReadSeq).toBe(4);
    // Never backwards.
    act(() => fake.emit('message:read', { matchId: 9, userId: OTHER, seq: 1 }));
    expect(cachedMatch(queryClient)?.otherReadSeq).toBe(4);
  });

  it("'typing' and 'presence' go to the cache; a late 'message:new' for a removed match changes nothing", () => {
    const { queryClient } = seeded();
    act(() => fake.emit('typing', { matchId: 9, userId: OTHER, typing: true }));
    expect(queryClient.getQueryData(typingQuery(9).queryKey)).toMatchObject({ userId: OTHER });
    act(() => fake.emit('typing', { matchId: 9, userId: OTHER, typing: false }));
    expect(queryClient.getQueryData(typingQuery(9).queryKey)).toBeNull();
    act(() => fake.emit('presence', { userId: OTHER, online: true }));
    expect(queryClient.getQueryData(presenceQuery(OTHER).queryKey)).toBe(true);

    act(() => fake.emit('match:removed', { matchId: 9, intent: 'platonic' }));
    act(() => fake.emit('message:new', makeMessage({ matchId: 9, seq: 3, senderId: OTHER })));
    expect(getConversation(queryClient, 9)).toBeUndefined();
    expect(cachedIds(queryClient, listKey)).toEqual([10]);
    expect(unreadBadge(queryClient)).toBe(1);
  });

  it('after a reconnect every loaded conversation catches up after its last seq, page after page', async () => {
    const all = makeMessages(1, LIMITS.messagePageMax + 4, { matchId: 9 });
    const fetchMock = mockFetch((url) => {
      const { pathname, searchParams } = new URL(url, 'http://x');
      if (pathname !== `/api/users/${ME}/matches/9/messages`) return jsonResponse([]);
      return jsonResponse(all.filter((m) => m.seq > Number(searchParams.get('after'))).slice(0, LIMITS.messagePageMax));
    });
    const { queryClient } = seeded();
    const messageCalls = () =>
      fetchMock.mock.calls.map(([url]) => String(url)).filter((url) => url.includes('/messages'));

    act(() => fake.setConnected(true));
    await waitFor(() => expect(seqsOf(queryClient, 9)).toHaveLength(all.length));
    expect(messageCalls()).toEqual([
      `/api/users/${ME}/matches/9/messages?after=2&limit=${LIMITS.messagePageMax}`,
      `/api/users/${ME}/matches/9/messages?after=${LIMITS.messagePageMax + 2}&limit=${LIMITS.messagePageMax}`,
    ]);
    // The first connection does not refetch the lists; a reconnection does (unread marks while away).
    expect(queryClient.getQueryState(listKey)?.isInvalidated).toBe(false);

    act(() => fake.setConnected(false));
    all.push(makeMessage({ matchId: 9, seq: all.length + 1, senderId: OTHER }));
    act(() => fake.setConnected(true));
    await waitFor(() => expect(seqsOf(queryClient, 9)).toHaveLength(all.length));
    expect(messageCalls().at(-1)).toBe(
      `/api/users/${ME}/matches/9/messages?after=${all.length - 1}&limit=${LIMITS.messagePageMax}`,
    );
    expect(queryClient.getQueryState(listKey)?.isInvalidated).toBe(true);
  });

  it("'realtime:resync' (the server's Redis was away, the socket stayed up): conversations, lists and badges catch up", async () => {
    const all = makeMessages(1, 4, { matchId: 9 });
    const fetchMock = mockFetch((url) => {
      const { pathname, searchParams } = new URL(url, 'http://x');
      if (pathname !== `/api/users/${ME}/matches/9/messages`) return jsonResponse([]);
      return jsonResponse(all.filter((m) => m.seq > Number(searchParams.get('after'))));
    });
    const { queryClient } = seeded();
    act(() => fake.setConnected(true));
    await waitFor(() => expect(seqsOf(queryClient, 9)).toEqual([1, 2, 3, 4]));
    // Two messages whose events were lost with Redis; no reconnection happens.
    all.push(...makeMessages(5, 6, { matchId: 9, senderId: OTHER }));
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      act(() => fake.emit('realtime:resync', {}));
      await act(async () => vi.advanceTimersByTimeAsync(RESYNC_SPREAD_MS));
    } finally {
      vi.useRealTimers();
    }
    await waitFor(() => expect(seqsOf(queryClient, 9)).toEqual([1, 2, 3, 4, 5, 6]));
    expect(fetchMock.mock.calls.map(([url]) => String(url))).toContain(
      `/api/users/${ME}/matches/9/messages?after=4&limit=${LIMITS.messagePageMax}`,
    );
    expect(queryClient.getQueryState(listKey)?.isInvalidated).toBe(true);
    expect(queryClient.getQueryState(badgesQuery(ME).queryKey)?.isInvalidated).toBe(true);
  });

  it(`reads the badges every ${TIMING.messagePollMs} ms while the socket is down, and stops once it is back`, async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const counts: BadgeCounts = {
        feed: { romantic: 2, platonic: 0, professional: 0 },
        unreadMatches: { romantic: 1, platonic: 0, professional: 0 },
      };
      const fetchMock = mockFetch(() => jsonResponse(counts));
      const badgeReads = () => fetchMock.mock.calls.filter(([url]) => String(url) === `/api/users/${ME}/badges`);
      const { queryClient } = renderBridge({ withNavigation: true });
      // Read once when the navigation mounts.
      await waitFor(() => expect(badgeReads()).toHaveLength(1));
      expect(queryClient.getQueryData(badgesQuery(ME).queryKey)).toEqual(counts);
      await act(() => vi.advanceTimersByTimeAsync(TIMING.messagePollMs));
      await waitFor(() => expect(badgeReads()).toHaveLength(2));

      act(() => fake.setConnected(true));
      await act(() => vi.advanceTimersByTimeAsync(TIMING.messagePollMs * 3));
      expect(badgeReads()).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
