import { act, fireEvent, render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AppProviders } from '@/app/providers';
import { createQueryClient } from '@/lib/query-client';
import { startSession } from '@/lib/session';
import { makeMatchView } from '@/test/fixtures';
import { announceMatch, MatchMomentHost, pendingMatchMoments, resetAnnouncedMatches } from './match-moment';

function renderHost() {
  const router = createMemoryRouter(
    [
      { path: '/', element: <MatchMomentHost /> },
      { path: '/chat/:id', element: <p>chat page</p> },
    ],
    { initialEntries: ['/'] },
  );
  render(
    <AppProviders queryClient={createQueryClient()}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return router;
}

const shows = ['Radiolab', 'Serial', 'Reply All', '99% Invisible'].map((name, i) => ({
  id: i + 1,
  name,
  creator: null,
  imageUrl: null,
}));

describe('the match moment', () => {
  beforeEach(() => startSession({ token: 'tok-7', userId: 7 }));
  afterEach(() => resetAnnouncedMatches());

  it('names the other person and the shared shows; "Send a message" opens the chat with an icebreaker', async () => {
    const router = renderHost();
    const match = makeMatchView({ id: 41, name: 'Zoe', sharedPodcasts: shows, sharedPodcastCount: 6 });
    act(() => void announceMatch(match));
    const dialog = await screen.findByRole('dialog', { name: "It's a match!" });
    expect(screen.getByTestId('match-moment-text').textContent).toBe('You and Zoe like each other.');
    expect(dialog.textContent).toContain('Radiolab');
    expect(dialog.textContent).toContain('Reply All');
    expect(dialog.textContent).not.toContain('99% Invisible');
    expect(dialog.textContent).toContain('and 3 more');
    expect(document.activeElement?.textContent).toContain('Send a message');

    fireEvent.click(screen.getByRole('button', { name: 'Send a message' }));
    await screen.findByText('chat page');
    expect(router.state.location.pathname).toBe('/chat/41');
    expect(router.state.location.search).toBe('?icebreaker=1');
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('shows once per match; Keep browsing and Escape close it, the next one follows', async () => {
    renderHost();
    act(() => {
      expect(announceMatch(makeMatchView({ id: 1, name: 'Ana' }))).toBe(true);
      expect(announceMatch(makeMatchView({ id: 1, name: 'Ana' }))).toBe(false);
      expect(announceMatch(makeMatchView({ id: 2, name: 'Ben' }))).toBe(true);
      // Not mutual: no moment.
      expect(announceMatch(makeMatchView({ id: 3, isMutualMatch: false }))).toBe(false);
    });
    expect(pendingMatchMoments().map((m) => m.id)).toEqual([1, 2]);
    expect((await screen.findByTestId('match-moment-text')).textContent).toContain('Ana');
    fireEvent.click(screen.getByRole('button', { name: 'Keep browsing' }));
    expect((await screen.findByTestId('match-moment-text')).textContent).toContain('Ben');
    fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' });
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(pendingMatchMoments()).toEqual([]);
  });
});
