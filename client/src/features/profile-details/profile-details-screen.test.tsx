import type { ProfileDetails } from '@shared/schemas/profile-details';
import { fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { writeStoredSession } from '@/lib/session';
import { makeSelfUser } from '@/test/fixtures';
import { jsonResponse, mockFetch, renderApp } from '@/test/utils';
import { commonSummary } from './profile-details-screen';

const me = makeSelfUser({ id: 5, displayName: 'Morgan', username: 'morgan', intent: 'romantic' });

const show = (id: number, name: string) => ({ id, name, creator: `${name} Media`, imageUrl: null });

function details(overrides: Partial<ProfileDetails> = {}): ProfileDetails {
  return {
    user: {
      id: 12,
      displayName: 'Zoe',
      profilePicture: null,
      intent: 'romantic',
      tagline: 'Night owl, true-crime fan',
      romanticTagline: 'Night owl, true-crime fan',
      platonicTagline: null,
      professionalTagline: null,
      videoIntroUrl: null,
    },
    matchPercentage: 72,
    match: { id: 3 },
    topCategories: [
      { name: 'True Crime', count: 3 },
      { name: 'Science', count: 1 },
    ],
    topPodcasts: [{ ...show(1, 'Serial'), timesListened: 17 }],
    recentListens: [
      {
        podcast: show(1, 'Serial'),
        listenedAt: new Date(Date.now() - 2 * 3600_000).toISOString(),
        episodeTitle: 'The Alibi',
        episodeNumber: 1,
        description: 'It all begins here.',
      },
    ],
    common: { podcasts: [show(1, 'Serial'), show(2, 'Radiolab'), show(3, 'Up First')], count: 5 },
    bluesky: null,
    ...overrides,
  };
}

function open(path: string, answer: () => Response) {
  writeStoredSession({ token: 'tok-5', userId: 5 });
  mockFetch((url) => {
    if (url === '/api/users/5') return jsonResponse(me);
    if (url.startsWith('/api/users/12/profile-details')) return answer();
    return jsonResponse({ error: 'not_found', message: 'Not found' }, { status: 404 });
  });
  return renderApp(path);
}

describe('ProfileDetailsScreen', () => {
  it('shows the person, Send Message for a match, and the three tabs with their counts', async () => {
    open('/profile-details/12/3', () => jsonResponse(details()));
    expect(await screen.findByTestId('profile-details-name')).toHaveProperty('textContent', 'Zoe');
    expect(screen.getByText('Night owl, true-crime fan')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Send Message' }).getAttribute('href')).toBe('/chat/3');
    expect(screen.getByText('72% match')).toBeTruthy();

    const categories = screen.getByTestId('top-categories');
    expect(within(categories).getByText(/True Crime/).textContent).toContain('3 shows');
    expect(within(categories).getByText(/Science/).textContent).toContain('1 show');
    expect(within(screen.getByTestId('top-podcasts')).getByText('Listened 17 times')).toBeTruthy();

    fireEvent.mouseDown(screen.getByRole('tab', { name: 'activity' }));
    const recent = await screen.findByTestId('recent-listens');
    expect(within(recent).getByText('2hr ago')).toBeTruthy();
    expect(recent.textContent).toContain('Episode 1 · The Alibi');
    expect(recent.textContent).toContain('It all begins here.');

    fireEvent.mouseDown(screen.getByRole('tab', { name: 'common' }));
    expect((await screen.findByTestId('common-summary')).textContent).toBe(
      'You and Zoe both listen to 5 shows. Here are 3 of them.',
    );
    expect(within(screen.getByTestId('common-podcasts')).getAllByRole('listitem')).toHaveLength(3);
  });

  it("shows a match's verified Bluesky handle as a badge linking to the public profile", async () => {
    open('/profile-details/12/3', () =>
      jsonResponse(details({ bluesky: { handle: 'zoe.bsky.social', did: 'did:plc:zoe' } })),
    );
    const badge = await screen.findByTestId('bluesky-badge');
    expect(badge.textContent).toBe('@zoe.bsky.social');
    expect(badge.getAttribute('href')).toBe('https://bsky.app/profile/did%3Aplc%3Azoe');
    expect(badge.getAttribute('rel')).toContain('noopener');
  });

  it('shows no Bluesky badge when none is linked (or the viewer is not a match)', async () => {
    open('/profile-details/12/3', () => jsonResponse(details()));
    await screen.findByTestId('profile-details-name');
    expect(screen.queryByTestId('bluesky-badge')).toBeNull();
  });

  it('offers no message without a match', async () => {
    open('/profile-details/12', () => jsonResponse(details({ match: null })));
    await screen.findByTestId('profile-details-name');
    expect(screen.queryByRole('link', { name: 'Send Message' })).toBeNull();
  });

  it("says 'Profile Not Found' with a way back when the server does not show this person", async () => {
    open('/profile-details/12/3', () =>
      jsonResponse({ error: 'not_found', message: 'User not found.' }, { status: 404 }),
    );
    expect(await screen.findByRole('heading', { name: 'Profile Not Found' })).toBeTruthy();
    expect(
      screen.getByText("We couldn't find this profile. It may have been removed or is no longer available."),
    ).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Return to Matches' }).getAttribute('href')).toBe('/matches');
  });

  it('shows a skeleton while loading', async () => {
    open('/profile-details/12', () => new Promise<Response>(() => undefined) as never);
    expect(await screen.findByTestId('profile-details-skeleton')).toBeTruthy();
  });
});

describe('commonSummary', () => {
  it('counts shared shows, says when only some are listed, and explains a match without any', () => {
    expect(commonSummary('Zoe', 1, 1)).toBe('You and Zoe both listen to 1 show.');
    expect(commonSummary('Zoe', 7, 3)).toBe('You and Zoe both listen to 7 shows. Here are 3 of them.');
    expect(commonSummary('Zoe', 0, 0)).toBe(
      "You and Zoe don't share a show yet: your match comes from similar tastes.",
    );
  });
});
