import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { writeStoredSession } from '@/lib/session';
import { makeSelfUser } from '@/test/fixtures';
import { jsonResponse, mockFetch, renderApp } from '@/test/utils';

describe('legal routes', () => {
  it.each([
    ['/terms', 'Terms of Service'],
    ['/privacy', 'Privacy Policy'],
  ])('%s opens without signing in', async (path, title) => {
    const fetchMock = mockFetch(() => jsonResponse({ error: 'not_found', message: 'Not found' }, { status: 404 }));
    const { router } = renderApp(path);
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toBe(title);
    expect(router.state.location.pathname).toBe(path);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('stays open for a signed-in user', async () => {
    writeStoredSession({ token: 'tok-5', userId: 5 });
    mockFetch(() => jsonResponse(makeSelfUser({ id: 5 })));
    const { router } = renderApp('/privacy');
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toBe('Privacy Policy');
    expect(router.state.location.pathname).toBe('/privacy');
  });

  it('the login screen links to both pages', async () => {
    mockFetch(() => jsonResponse({ error: 'not_found', message: 'Not found' }, { status: 404 }));
    renderApp('/login');
    expect((await screen.findByRole('link', { name: 'Terms of Service' })).getAttribute('href')).toBe('/terms');
    expect(screen.getByRole('link', { name: 'Privacy Policy' }).getAttribute('href')).toBe('/privacy');
  });
});
