import type { SignInWays } from '@shared/schemas/sign-in';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { startSession } from '@/lib/session';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { SignInWaysCard } from './sign-in-ways-card';

const WAYS: SignInWays = {
  ways: [
    {
      id: 1,
      kind: 'passkey',
      label: 'Chrome on Linux',
      createdAt: '2026-11-01T10:00:00Z',
      lastUsedAt: null,
      backedUp: true,
    },
    {
      id: 2,
      kind: 'email',
      label: 'mo@example.com',
      createdAt: '2026-11-01T10:00:00Z',
      lastUsedAt: null,
      backedUp: null,
    },
  ],
  freshUntil: null,
};

describe('SignInWaysCard', () => {
  it('asks "Confirm it is you" before removing a way in, then removes it with a code to the address', async () => {
    startSession({ token: 'tok-9', userId: 9 });
    let fresh = false;
    const calls: string[] = [];
    mockFetch((url, init) => {
      calls.push(`${init.method ?? 'GET'} ${url}`);
      if (url === '/api/users/9/sign-in-ways' && (init.method ?? 'GET') === 'GET') {
        return jsonResponse({ ...WAYS, freshUntil: fresh ? new Date(Date.now() + 600_000).toISOString() : null });
      }
      if (url === '/api/auth/reauth/email/code') return jsonResponse({ ok: true, expiresInMinutes: 10 });
      if (url === '/api/auth/reauth/email/verify') {
        fresh = true;
        return jsonResponse({ freshUntil: new Date(Date.now() + 600_000).toISOString() });
      }
      if (url === '/api/users/9/sign-in-ways/2' && init.method === 'DELETE') {
        return jsonResponse({ ways: [WAYS.ways[0]], freshUntil: new Date(Date.now() + 600_000).toISOString() });
      }
      return jsonResponse({ error: 'not_found', message: 'nope' }, { status: 404 });
    });
    renderWithProviders(<SignInWaysCard userId={9} passkeys email />);
    const list = await screen.findByRole('list', { name: 'Your ways to sign in' });
    expect(within(list).getAllByTestId('sign-in-way')).toHaveLength(2);
    screen.getByText(/Passkey · synced · added/);

    fireEvent.click(screen.getByRole('button', { name: 'Remove mo@example.com' }));
    // Not fresh: nothing removed yet, the confirmation first.
    const confirm = await screen.findByTestId('confirm-it-is-you');
    expect(calls.some((call) => call.startsWith('DELETE'))).toBe(false);
    within(confirm).getByRole('button', { name: 'Use a passkey' });
    fireEvent.click(within(confirm).getByRole('button', { name: 'Email a code to mo@example.com' }));
    fireEvent.change(await within(confirm).findByLabelText(/The 6-digit code we sent to/), {
      target: { value: '123456' },
    });
    fireEvent.click(within(confirm).getByRole('button', { name: 'Confirm' }));
    await waitFor(() => expect(within(list).getAllByTestId('sign-in-way')).toHaveLength(1));
    expect(calls).toContain('DELETE /api/users/9/sign-in-ways/2');
    // The last way in cannot be removed: no button, and a sentence says why.
    expect(screen.queryByRole('button', { name: /^Remove / })).toBeNull();
    screen.getByText(/This is your only way in/);
  });
});
