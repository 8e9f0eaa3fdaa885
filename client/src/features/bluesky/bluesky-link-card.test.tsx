import { BLUESKY_TEXTS, type BlueskyStatus } from '@shared/schemas/bluesky';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { BlueskyLinkCard } from './bluesky-link-card';

const USER = 7;

function status(overrides: Partial<BlueskyStatus> = {}): BlueskyStatus {
  return { available: true, message: null, linked: false, handle: null, did: null, ...overrides };
}

const notFound = () => jsonResponse({ error: 'not_found', message: 'nope' }, { status: 404 });

describe('BlueskyLinkCard', () => {
  it('checks the handle before asking, then sends the browser to approve the link', async () => {
    const bodies: unknown[] = [];
    mockFetch((url, init) => {
      if (url === `/api/users/${USER}/bluesky`) return jsonResponse(status());
      if (url === `/api/users/${USER}/bluesky/link` && init.method === 'POST') {
        bodies.push(JSON.parse(String(init.body)));
        return jsonResponse({ url: 'http://localhost:3000/oauth/authorize?request_uri=r1' });
      }
      return notFound();
    });
    renderWithProviders(<BlueskyLinkCard userId={USER} />);
    await waitFor(() => expect(screen.getByTestId('bluesky-state').textContent).toBe('Not linked'));
    const input = screen.getByLabelText('Your Bluesky handle');
    fireEvent.change(input, { target: { value: 'not a handle' } });
    fireEvent.click(screen.getByRole('button', { name: 'Link Bluesky' }));
    expect((await screen.findByRole('alert')).textContent).toBe('A handle looks like ada.bsky.social');
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(bodies).toEqual([]);

    fireEvent.change(input, { target: { value: ' @Ada.BSKY.social ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Link Bluesky' }));
    await waitFor(() => expect(location.href).toContain('/oauth/authorize?request_uri=r1'));
    expect(bodies).toEqual([{ handle: 'ada.bsky.social', returnPage: 'profile' }]);
  });

  it("shows the server's reason under the field (a handle whose identity does not confirm it)", async () => {
    mockFetch((url, init) => {
      if (url === `/api/users/${USER}/bluesky`) return jsonResponse(status());
      if (url.endsWith('/bluesky/link') && init.method === 'POST') {
        return jsonResponse({ error: 'bluesky_handle', message: BLUESKY_TEXTS.notClaimed }, { status: 422 });
      }
      return notFound();
    });
    renderWithProviders(<BlueskyLinkCard userId={USER} />);
    fireEvent.change(await screen.findByLabelText('Your Bluesky handle'), { target: { value: 'liar.example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Link Bluesky' }));
    expect((await screen.findByRole('alert')).textContent).toBe(BLUESKY_TEXTS.notClaimed);
  });

  it('back with a code, claims it once and shows the linked handle; Unlink removes it', async () => {
    let linked = false;
    const claims: unknown[] = [];
    mockFetch((url, init) => {
      if (url === `/api/users/${USER}/bluesky` && init.method === 'DELETE') {
        linked = false;
        return jsonResponse({ ok: true });
      }
      if (url === `/api/users/${USER}/bluesky`) {
        return jsonResponse(linked ? status({ linked: true, handle: 'ada.test', did: 'did:plc:x' }) : status());
      }
      if (url === `/api/users/${USER}/bluesky/finish` && init.method === 'POST') {
        claims.push(JSON.parse(String(init.body)));
        linked = true;
        return jsonResponse(status({ linked: true, handle: 'ada.test', did: 'did:plc:x' }));
      }
      return notFound();
    });
    renderWithProviders(<BlueskyLinkCard userId={USER} />, { path: '/profile?bluesky_link=c1' });
    await screen.findByText(BLUESKY_TEXTS.linked);
    await waitFor(() => expect(screen.getByTestId('bluesky-state').textContent).toBe('Linked as @ada.test'));
    expect(claims).toEqual([{ code: 'c1' }]);
    expect(screen.getByTestId('bluesky-badge').getAttribute('href')).toBe('https://bsky.app/profile/did%3Aplc%3Ax');

    fireEvent.click(screen.getByRole('button', { name: 'Unlink' }));
    await waitFor(() => expect(screen.getByTestId('bluesky-state').textContent).toBe('Not linked'));
    expect(screen.queryByTestId('bluesky-badge')).toBeNull();
  });

  it('a refused claim or a failed callback says why', async () => {
    mockFetch((url, init) => {
      if (url === `/api/users/${USER}/bluesky`) return jsonResponse(status());
      if (url.endsWith('/bluesky/finish') && init.method === 'POST') {
        return jsonResponse({ error: 'forbidden', message: BLUESKY_TEXTS.otherAccount }, { status: 403 });
      }
      return notFound();
    });
    const { unmount } = renderWithProviders(<BlueskyLinkCard userId={USER} />, { path: '/profile?bluesky_link=c9' });
    await screen.findByText(BLUESKY_TEXTS.otherAccount);
    unmount();
    renderWithProviders(<BlueskyLinkCard userId={USER} />, { path: '/profile?bluesky_error=not_claimed' });
    await screen.findByText(BLUESKY_TEXTS.notClaimed);
  });

  it('says why linking is not possible on this server, and why a link ended', async () => {
    mockFetch(() =>
      jsonResponse(status({ available: false, message: 'Linking Bluesky is not set up on this server yet.' })),
    );
    renderWithProviders(<BlueskyLinkCard userId={USER} />);
    await screen.findByText('Linking Bluesky is not set up on this server yet.');
    expect(screen.queryByRole('button', { name: 'Link Bluesky' })).toBeNull();
  });
});
