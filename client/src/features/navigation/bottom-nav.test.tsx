import { INTENT_INFO } from '@shared/constants';
import { fireEvent, render, screen } from '@testing-library/react';
import type { ReactNode } from 'react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { BottomNav, type BottomNavProps } from './bottom-nav';

function renderNav(props: Partial<BottomNavProps> = {}) {
  const element: ReactNode = <BottomNav activeTab="feed" currentIntent="romantic" {...props} />;
  const router = createMemoryRouter([{ path: '*', element }], { initialEntries: ['/'] });
  render(<RouterProvider router={router} />);
  return router;
}

/** Browsers report inline colours as rgb(), happy-dom keeps hex: accept both. */
function sameColor(actual: string, hex: string) {
  const n = Number.parseInt(hex.slice(1), 16);
  return [hex.toLowerCase(), `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`].includes(actual.toLowerCase());
}

describe('BottomNav', () => {
  it('is a navigation landmark with the three tabs in order', () => {
    renderNav();
    const nav = screen.getByRole('navigation', { name: 'Main' });
    const labels = Array.from(nav.querySelectorAll('a')).map((a) => a.textContent);
    expect(labels).toEqual(['My Profile', 'Feed', 'Matches']);
    expect(screen.getByTestId('nav-profile').getAttribute('href')).toBe('/profile');
    expect(screen.getByTestId('nav-feed').getAttribute('href')).toBe('/');
    expect(screen.getByTestId('nav-matches').getAttribute('href')).toBe('/matches');
  });

  it.each([
    ['profile', 'nav-profile'],
    ['feed', 'nav-feed'],
    ['matches', 'nav-matches'],
  ] as const)('marks %s as the current page', (activeTab, testId) => {
    renderNav({ activeTab });
    for (const id of ['nav-profile', 'nav-feed', 'nav-matches']) {
      expect(screen.getByTestId(id).getAttribute('aria-current')).toBe(id === testId ? 'page' : null);
    }
  });

  it("highlights the active tab in the current intent's colour", () => {
    renderNav({ activeTab: 'matches', currentIntent: 'professional' });
    expect(sameColor(screen.getByTestId('nav-matches').style.color, INTENT_INFO.professional.color)).toBe(true);
    expect(screen.getByTestId('nav-feed').style.color).toBe('');
  });

  it('shows no badges at zero', () => {
    renderNav({ feedNotifications: 0, matchNotificationsByIntent: { romantic: 0 } });
    expect(screen.queryByTestId('nav-feed-badge')).toBeNull();
    expect(screen.queryByTestId('nav-matches-badge')).toBeNull();
  });

  it('shows the feed count and the unread matches of the current intent only', () => {
    renderNav({
      currentIntent: 'platonic',
      feedNotifications: 4,
      matchNotificationsByIntent: { romantic: 9, platonic: 2, professional: 0 },
    });
    expect(screen.getByTestId('nav-feed-badge').textContent).toBe('4');
    expect(screen.getByTestId('nav-matches-badge').textContent).toBe('2');
    expect(screen.getByRole('link', { name: /^Matches\s*, 2 unread matches$/ })).toBeTruthy();
  });

  it('hides the matches badge when only other intents have unread matches', () => {
    renderNav({ currentIntent: 'professional', matchNotificationsByIntent: { romantic: 3, platonic: 1 } });
    expect(screen.queryByTestId('nav-matches-badge')).toBeNull();
  });

  it('navigates when a tab is clicked', () => {
    const router = renderNav();
    fireEvent.click(screen.getByTestId('nav-matches'));
    expect(router.state.location.pathname).toBe('/matches');
  });
});
