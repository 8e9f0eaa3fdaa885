import { STORAGE_KEYS } from '@shared/constants';
import type { BadgeCounts } from '@shared/events';
import { act, render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { badgesAtom } from '@/lib/badges';
import { createQueryClient } from '@/lib/query-client';
import { sessionAtom, startSession } from '@/lib/session';
import { appStore } from '@/lib/store';
import { toastsAtom } from '@/lib/toast';
import { makeSelfUser } from '@/test/fixtures';
import { AppProviders } from './providers';
import RealtimeBridge from './realtime-bridge';

// A stand-in for the socket.io client: records listeners so the test can play server events.
const fake = await vi.hoisted(async () => (await import('@/test/fake-socket')).createFakeSocket());

vi.mock('socket.io-client', () => ({ io: (options: unknown) => fake.io(options) }));

function renderBridge() {
  const queryClient = createQueryClient();
  const router = createMemoryRouter(
    [
      { path: '/profile', element: <RealtimeBridge userId={7} /> },
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

describe('RealtimeBridge', () => {
  beforeEach(() => {
    startSession({ token: 'tok-7', userId: 7 });
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
    expect(fake.listeners.get('badges:update')?.size ?? 0).toBe(0);
  });

  it("'badges:update' feeds the badge counts", () => {
    renderBridge();
    const counts: BadgeCounts = {
      feed: { romantic: 1, platonic: 2, professional: 3 },
      unreadMatches: { romantic: 4, platonic: 0, professional: 0 },
    };
    act(() => fake.emit('badges:update', counts));
    expect(appStore.get(badgesAtom)).toEqual(counts);
  });

  it("'match:new' shows the intent's mutual toast once per match and refreshes feed and matches", async () => {
    const { queryClient } = renderBridge();
    const invalidate = vi.spyOn(queryClient, 'invalidateQueries');
    const match = {
      id: 901,
      user1Id: 7,
      user2Id: 12,
      intent: 'platonic',
      matchPercentage: 80,
      user1Liked: true,
      user2Liked: true,
      createdAt: '2025-01-01T00:00:00.000Z',
      isMutualMatch: true,
      isFavorite: false,
      hasUnreadMessages: false,
      matchedUser: { ...makeSelfUser({ id: 12 }) },
    };
    act(() => fake.emit('match:new', match));
    expect(appStore.get(toastsAtom)[0]?.title).toBe("It's a sound match!");
    expect(appStore.get(toastsAtom)[0]?.description).toContain('Kindred Buddy');
    appStore.set(toastsAtom, []);
    act(() => fake.emit('match:new', match));
    expect(appStore.get(toastsAtom)).toEqual([]);
    expect(invalidate).toHaveBeenCalled();
  });

  it("'user:updated' replaces the cached user", () => {
    const { queryClient } = renderBridge();
    const user = makeSelfUser({ id: 7, displayName: 'Renamed' });
    act(() => fake.emit('user:updated', user));
    expect(queryClient.getQueryData(['/api/users/7'])).toEqual(user);
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

  it('other connection errors keep the session', async () => {
    renderBridge();
    await act(async () => fake.emit('connect_error', new Error('xhr poll error')));
    expect(appStore.get(sessionAtom)).toEqual({ token: 'tok-7', userId: 7 });
  });
});
