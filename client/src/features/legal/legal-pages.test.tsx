import { fireEvent, render, screen } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { PRIVACY_EMAIL } from './legal-page';
import { PrivacyScreen } from './privacy-screen';
import { TermsScreen } from './terms-screen';

function renderAt(path: string, entries = [path]) {
  const router = createMemoryRouter(
    [
      { path: '/terms', element: <TermsScreen /> },
      { path: '/privacy', element: <PrivacyScreen /> },
      { path: '*', element: <p>elsewhere</p> },
    ],
    { initialEntries: entries, initialIndex: entries.length - 1 },
  );
  render(<RouterProvider router={router} />);
  return router;
}

function h2s() {
  return screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
}

describe('legal pages', () => {
  it('the Privacy Policy says what is stored, for how long, and how to export or delete it', () => {
    renderAt('/privacy');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Privacy Policy');
    expect(h2s()).toEqual([
      'What we store',
      'Why we store it',
      'Who can see what',
      'How long we keep it',
      'Your choices',
      'Get a copy of your data or delete your account',
      'Services we use',
      'Changes',
    ]);
    const text = document.body.textContent ?? '';
    for (const stored of ['Spotify tokens', 'OPML', 'Likes, passes and matches', 'Messages', 'Pictures and videos']) {
      expect(text).toContain(stored);
    }
    expect(text).toContain('encrypted (AES-256-GCM)');
    expect(text).toContain('Reports are kept for one year');
    expect(text).not.toContain('no export or delete button yet');
    for (const choice of ['Download my data', 'Delete account', 'type DELETE to confirm'])
      expect(text).toContain(choice);
    expect(text).toContain('generated from your account id');
    expect(text).toContain('GPS position');
    for (const link of screen.getAllByRole('link', { name: PRIVACY_EMAIL })) {
      expect(link.getAttribute('href')).toBe(`mailto:${PRIVACY_EMAIL}`);
    }
  });

  it('the Terms of Service have their sections and link to the Privacy Policy', () => {
    const router = renderAt('/terms');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Terms of Service');
    expect(h2s()).toContain('How to behave');
    fireEvent.click(screen.getAllByRole('link', { name: 'Privacy Policy' })[0] as HTMLElement);
    expect(router.state.location.pathname).toBe('/privacy');
  });

  it('Back returns to the page before, or goes to / when the page was opened directly', () => {
    const router = renderAt('/terms');
    expect(screen.getByRole('link', { name: 'Back' }).getAttribute('href')).toBe('/');
    fireEvent.click(screen.getByRole('link', { name: 'Back' }));
    expect(router.state.location.pathname).toBe('/');
  });
});
