import type { SuspendedError } from '@shared/schemas/moderation';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { formatDateTime } from '@/components/statement-of-reasons';
import { appStore } from '@/lib/store';
import { suspensionAtom } from '@/lib/suspension';
import { toastsAtom } from '@/lib/toast';
import { makeNotice } from '@/test/moderation-fixtures';
import { jsonResponse, mockFetch, renderApp } from '@/test/utils';
import { SUSPENDED_APPEAL_SENT_TEXT } from './suspended-panel';

const METHODS = { passkey: false, email: true, bluesky: false, spotify: false, devLogin: true };
const UNTIL = '2026-12-04T10:00:00.000Z';
const TOKEN = 'appeal-token-0123456789abcdef';

const refusal = (overrides: Partial<SuspendedError> = {}): SuspendedError => ({
  error: 'suspended',
  message: `Your account is suspended until ${UNTIL}.`,
  until: UNTIL,
  notice: makeNotice({ action: { endsAt: UNTIL } }),
  appealToken: TOKEN,
  ...overrides,
});

/** The server: sign-ins refused as suspended; appeals answered by `appeal`. */
function serve(appeal: () => Response = () => jsonResponse({ ok: true }, { status: 201 })) {
  return mockFetch((url, init) => {
    if (url === '/api/auth/methods') return jsonResponse(METHODS);
    if (url === '/api/auth/email/code') return jsonResponse({ ok: true, expiresInMinutes: 10 });
    if (url === '/api/auth/dev-login' || url === '/api/auth/email/verify') {
      return jsonResponse(refusal(), { status: 403 });
    }
    if (url === '/api/appeals' && init.method === 'POST') return appeal();
    return jsonResponse({ error: 'not_found', message: 'Not found.' }, { status: 404 });
  });
}

const panel = () => screen.findByRole('region', { name: `Your account is suspended until ${formatDateTime(UNTIL)}` });

describe('Login screen: a suspended account', () => {
  it('a refused dev login shows the statement of reasons with the end date, not a failure toast', async () => {
    serve();
    renderApp('/login');
    fireEvent.change(await screen.findByLabelText('Or choose any username'), { target: { value: 'harry' } });
    fireEvent.click(screen.getByRole('button', { name: 'Login as Developer' }));

    const statement = await panel();
    within(statement).getByText('You sent threatening messages to another person.');
    within(statement).getByText('Treat people with respect: no harassment, threats or hate.');
    within(statement).getByText(`Until ${formatDateTime(UNTIL)}`);
    within(statement).getByText('Harassment');
    // The ways in step aside; no "Login failed" toast on top of the statement.
    expect(screen.queryByRole('button', { name: 'Login as Developer' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Email me a sign-in code' })).toBeNull();
    expect(appStore.get(toastsAtom)).toEqual([]);
  });

  it('a refused email sign-in shows it too; the appeal goes with the token and says what happens next', async () => {
    const fetchMock = serve();
    renderApp('/login');
    fireEvent.change(await screen.findByLabelText('Email'), { target: { value: 'harry@example.com' } });
    fireEvent.click(screen.getByRole('button', { name: 'Email me a sign-in code' }));
    fireEvent.change(await screen.findByLabelText(/Enter the 6-digit code/), { target: { value: '123456' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));

    const statement = await panel();
    fireEvent.click(within(statement).getByRole('button', { name: 'Appeal' }));
    const field = within(statement).getByLabelText('Why should we look at it again?');
    // Too short: the contract's sentence, and nothing is sent (appeals are few per hour).
    fireEvent.change(field, { target: { value: 'no' } });
    fireEvent.click(within(statement).getByRole('button', { name: 'Send appeal' }));
    await within(statement).findByText('Tell us why in a few words (at least 10 characters).');
    expect(fetchMock.mock.calls.filter(([url]) => url === '/api/appeals')).toEqual([]);

    fireEvent.change(field, { target: { value: 'I only asked twice, it was a misunderstanding.' } });
    fireEvent.click(within(statement).getByRole('button', { name: 'Send appeal' }));
    await within(statement).findByText(SUSPENDED_APPEAL_SENT_TEXT);
    const sent = fetchMock.mock.calls.filter(([url]) => url === '/api/appeals');
    expect(sent).toHaveLength(1);
    expect(JSON.parse(String(sent[0]?.[1]?.body))).toEqual({
      token: TOKEN,
      text: 'I only asked twice, it was a misunderstanding.',
    });
    // Kept for this tab: a reload still says the appeal left.
    expect(appStore.get(suspensionAtom)?.appealSent).toBe(true);
  });

  it("the server's refusal of an appeal is shown (an expired token)", async () => {
    serve(() =>
      jsonResponse(
        { error: 'bad_request', message: 'This appeal link has expired. Sign in again to appeal.' },
        { status: 400 },
      ),
    );
    renderApp('/login');
    fireEvent.change(await screen.findByLabelText('Or choose any username'), { target: { value: 'harry' } });
    fireEvent.click(screen.getByRole('button', { name: 'Login as Developer' }));
    const statement = await panel();
    fireEvent.click(within(statement).getByRole('button', { name: 'Appeal' }));
    fireEvent.change(within(statement).getByLabelText('Why should we look at it again?'), {
      target: { value: 'Please look at it again, it was a joke.' },
    });
    fireEvent.click(within(statement).getByRole('button', { name: 'Send appeal' }));
    await within(statement).findByText('This appeal link has expired. Sign in again to appeal.');
  });

  it('"Back to sign in" brings the ways in back; a ban without an appeal token offers no appeal', async () => {
    mockFetch((url) => {
      if (url === '/api/auth/methods') return jsonResponse(METHODS);
      return jsonResponse(
        refusal({
          message: 'Your account is banned.',
          until: null,
          appealToken: null,
          notice: makeNotice({ canAppeal: false, action: { kind: 'ban', endsAt: null } }),
        }),
        { status: 403 },
      );
    });
    renderApp('/login');
    fireEvent.change(await screen.findByLabelText('Or choose any username'), { target: { value: 'harry' } });
    fireEvent.click(screen.getByRole('button', { name: 'Login as Developer' }));
    const statement = await screen.findByRole('region', { name: 'Your account is banned' });
    within(statement).getByText('Permanently');
    expect(within(statement).queryByRole('button', { name: 'Appeal' })).toBeNull();
    fireEvent.click(within(statement).getByRole('button', { name: 'Back to sign in' }));
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Your account is banned' })).toBeNull());
    screen.getByRole('button', { name: 'Login as Developer' });
  });
});
