import { GENERIC_LOGIN_ERROR, LOGIN_ERRORS, STORAGE_KEYS, TIMING } from '@shared/constants';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeSelfUser } from '@/test/fixtures';
import { jsonResponse, mockFetch, renderApp } from '@/test/utils';

function usernameInput() {
  return screen.getByLabelText('Or choose any username') as HTMLInputElement;
}

describe('Login screen', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('shows the title, the provider button, the storage reset and the dev section', async () => {
    mockFetch((url) =>
      jsonResponse(
        url === '/api/auth/methods'
          ? { passkey: false, email: false, bluesky: false, spotify: true, devLogin: true }
          : {},
      ),
    );
    renderApp('/login');
    await screen.findByRole('heading', { name: 'PodMatch', level: 1 });
    await screen.findByRole('button', { name: 'Continue with Spotify' });
    screen.getByRole('button', { name: 'Clear Local Storage & Log Out' });
    screen.getByRole('button', { name: 'Login as Developer' });
    for (const name of ['alex', 'jordan', 'sam', 'riley']) screen.getByRole('button', { name: `Log in as ${name}` });
    const footer = screen.getByText(/By continuing you agree to our/);
    expect(footer.textContent).toBe('By continuing you agree to our Terms of Service and Privacy Policy');
  });

  it('offers no Spotify button on a server without Spotify credentials, and no dev section outside development', async () => {
    mockFetch((url) =>
      jsonResponse(
        url === '/api/auth/methods'
          ? { passkey: false, email: false, bluesky: false, spotify: false, devLogin: false }
          : {},
      ),
    );
    renderApp('/login');
    await screen.findByRole('heading', { name: 'PodMatch', level: 1 });
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Login as Developer' })).toBeNull());
    expect(screen.queryByRole('button', { name: 'Continue with Spotify' })).toBeNull();
    screen.getByRole('button', { name: 'Clear Local Storage & Log Out' });
  });

  it('an empty username shows the "Username required" toast and an inline message, without calling the server', async () => {
    const fetchMock = mockFetch(() => jsonResponse({}));
    renderApp('/login');
    fireEvent.change(await screen.findByLabelText('Or choose any username'), { target: { value: '   ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Login as Developer' }));

    await screen.findByText('Username required');
    screen.getByText('Please enter a username to continue');
    expect(usernameInput().getAttribute('aria-invalid')).toBe('true');
    expect(screen.getByRole('alert').textContent).toBe('A username is needed to log in.');
    expect(fetchMock.mock.calls.filter(([url]) => url === '/api/auth/dev-login')).toEqual([]);
  });

  it('a successful dev login stores the session in both storages and opens the feed', async () => {
    const user = makeSelfUser({ id: 31, displayName: 'river', username: 'river' });
    const fetchMock = mockFetch((url, init) => {
      if (url === '/api/auth/dev-login' && init.method === 'POST') return jsonResponse({ token: 'tok-31', user });
      if (url === '/api/users/31') return jsonResponse(user);
      return jsonResponse({ error: 'not_found', message: 'nope' }, { status: 404 });
    });
    const { router } = renderApp('/login');
    fireEvent.change(await screen.findByLabelText('Or choose any username'), { target: { value: ' river ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Login as Developer' }));

    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect((await screen.findByTestId('user-display-name')).textContent).toBe('river');
    const loginCall = fetchMock.mock.calls.find(([url]) => url === '/api/auth/dev-login');
    expect(loginCall?.[1]?.body).toBe('{"username":"river"}');
    for (const storage of [localStorage, sessionStorage]) {
      expect(storage.getItem(STORAGE_KEYS.token)).toBe('tok-31');
      expect(storage.getItem(STORAGE_KEYS.userId)).toBe('31');
    }
    expect(screen.getByTestId('nav-feed').getAttribute('aria-current')).toBe('page');
  });

  it('a suggested username logs in with one click', async () => {
    const user = makeSelfUser({ id: 2, displayName: 'sam', username: 'sam' });
    mockFetch((url) => (url === '/api/auth/dev-login' ? jsonResponse({ token: 't', user }) : jsonResponse(user)));
    const { router } = renderApp('/login');
    fireEvent.click(await screen.findByRole('button', { name: 'Log in as sam' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
  });

  it('a failed login shows "Login failed" with the server message', async () => {
    mockFetch(() => jsonResponse({ error: 'validation', message: 'Username is too odd' }, { status: 400 }));
    renderApp('/login');
    fireEvent.change(await screen.findByLabelText('Or choose any username'), { target: { value: 'x' } });
    fireEvent.click(screen.getByRole('button', { name: 'Login as Developer' }));
    await screen.findByText('Login failed');
    screen.getByText('Unable to login. Please try again. Username is too odd');
    expect(localStorage.getItem(STORAGE_KEYS.token)).toBeNull();
  });

  it("a refused username shows the server's sentence under the field until the name changes", async () => {
    const message = 'Usernames can be at most 40 characters.';
    mockFetch(() =>
      jsonResponse({ error: 'bad_request', message, issues: [{ path: 'body.username', message }] }, { status: 400 }),
    );
    renderApp('/login');
    fireEvent.change(await screen.findByLabelText('Or choose any username'), { target: { value: 'a'.repeat(41) } });
    fireEvent.click(screen.getByRole('button', { name: 'Login as Developer' }));
    expect((await screen.findByRole('alert')).textContent).toBe(message);
    expect(usernameInput().getAttribute('aria-invalid')).toBe('true');
    fireEvent.change(usernameInput(), { target: { value: 'a'.repeat(40) } });
    await waitFor(() => expect(screen.queryByRole('alert')).toBeNull());
    expect(usernameInput().getAttribute('aria-invalid')).toBeNull();
  });

  it('a server error is reported by the toast alone, not under the field', async () => {
    mockFetch(() => jsonResponse({ error: 'internal_error', message: 'Something went wrong' }, { status: 500 }));
    renderApp('/login');
    fireEvent.change(await screen.findByLabelText('Or choose any username'), { target: { value: 'x' } });
    fireEvent.click(screen.getByRole('button', { name: 'Login as Developer' }));
    await screen.findByText('Login failed');
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('an answer without token or user is an "Invalid response from server"', async () => {
    mockFetch(() => jsonResponse({ user: makeSelfUser() }));
    renderApp('/login');
    fireEvent.change(await screen.findByLabelText('Or choose any username'), { target: { value: 'x' } });
    fireEvent.click(screen.getByRole('button', { name: 'Login as Developer' }));
    await screen.findByText('Invalid response from server');
    screen.getByText('Login failed');
  });

  it.each(Object.keys(LOGIN_ERRORS))('?error=%s shows its own destructive toast', async (code) => {
    renderApp(`/login?error=${code}`);
    const info = LOGIN_ERRORS[code];
    if (!info) throw new Error('unreachable');
    const title = await screen.findByText(info.title);
    screen.getByText(info.description);
    expect(title.closest('[data-variant]')?.getAttribute('data-variant')).toBe('destructive');
  });

  it('an unknown ?error= value shows the generic login error', async () => {
    renderApp('/login?error=something_else');
    await screen.findByText(GENERIC_LOGIN_ERROR.title);
    screen.getByText(GENERIC_LOGIN_ERROR.description);
  });

  it('removes the error parameter from the URL after 5 s, keeping the others', async () => {
    // Fake clock that still moves with real time, so findBy* polling keeps working.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { router } = renderApp('/login?error=spotify_no_code&keep=1');
    await screen.findByText(LOGIN_ERRORS.spotify_no_code?.title ?? '');
    expect(router.state.location.search).toContain('error=spotify_no_code');
    await act(async () => {
      vi.advanceTimersByTime(TIMING.loginErrorToastMs - 100);
    });
    expect(router.state.location.search).toContain('error=spotify_no_code');
    await act(async () => {
      vi.advanceTimersByTime(200);
    });
    expect(router.state.location.pathname).toBe('/login');
    expect(router.state.location.search).toBe('?keep=1');
  });

  it("'Clear Local Storage & Log Out' wipes both storages and confirms with a toast", async () => {
    localStorage.setItem('something', 'else');
    sessionStorage.setItem('other', 'value');
    renderApp('/login');
    fireEvent.click(await screen.findByRole('button', { name: 'Clear Local Storage & Log Out' }));
    await screen.findByText('Logged out');
    expect(localStorage.length).toBe(0);
    expect(sessionStorage.length).toBe(0);
  });
});

describe('Login screen: ways in', () => {
  const ALL = { passkey: true, email: true, bluesky: true, spotify: false, devLogin: false };

  it('shows each way in this server offers, and the passkey recovery help', async () => {
    mockFetch((url) => jsonResponse(url === '/api/auth/methods' ? ALL : {}));
    renderApp('/login');
    await screen.findByRole('button', { name: 'Sign in with a passkey' });
    screen.getByRole('button', { name: 'New here? Create an account with a passkey' });
    screen.getByRole('button', { name: 'Email me a sign-in code' });
    screen.getByRole('button', { name: 'Continue with Bluesky' });
    expect(screen.queryByRole('button', { name: 'Continue with Spotify' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Login as Developer' })).toBeNull();
    fireEvent.click(screen.getByText('Lost your passkey?'));
    screen.getByText(/enter it above: we send you a code/);
  });

  it('email: the address, then the code, then the app; a wrong code is a sentence under the field', async () => {
    const user = makeSelfUser({ id: 44, displayName: 'Mo', username: 'mo' });
    let tries = 0;
    const fetchMock = mockFetch((url, init) => {
      if (url === '/api/auth/methods') return jsonResponse({ ...ALL, passkey: false });
      if (url === '/api/auth/email/code') return jsonResponse({ ok: true, expiresInMinutes: 10 });
      if (url === '/api/auth/email/verify' && init.method === 'POST') {
        tries++;
        if (tries === 1) {
          return jsonResponse(
            { error: 'bad_request', message: 'That code is not right. 4 tries left.' },
            { status: 400 },
          );
        }
        return jsonResponse({ token: 'tok-44', user });
      }
      if (url === '/api/users/44') return jsonResponse(user);
      return jsonResponse({ error: 'not_found', message: 'nope' }, { status: 404 });
    });
    const { router } = renderApp('/login');
    fireEvent.change(await screen.findByLabelText('Email'), { target: { value: ' Mo@Example.com ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Email me a sign-in code' }));
    const codeField = await screen.findByLabelText(/Enter the 6-digit code we sent to/);
    await waitFor(() => expect(document.activeElement).toBe(codeField));
    expect(fetchMock.mock.calls.find(([url]) => url === '/api/auth/email/code')?.[1]?.body).toBe(
      '{"email":"Mo@Example.com"}',
    );
    // Too short: said here, nothing sent.
    fireEvent.change(codeField, { target: { value: '12a3' } });
    expect((codeField as HTMLInputElement).value).toBe('123');
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await screen.findByText('Enter the 6-digit code from the email.');
    fireEvent.change(codeField, { target: { value: '123456' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await screen.findByText('That code is not right. 4 tries left.');
    fireEvent.change(codeField, { target: { value: '654321' } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(localStorage.getItem(STORAGE_KEYS.token)).toBe('tok-44');
  });

  it('a Bluesky sign-in that came back with an error says so and leaves the URL clean', async () => {
    mockFetch((url) => jsonResponse(url === '/api/auth/methods' ? ALL : {}));
    const { router } = renderApp('/login?bluesky_error=other_browser');
    await screen.findByText('Bluesky sign-in failed');
    // The toast, and the copy Radix reads out to screen readers while it appears.
    expect(screen.getAllByText(/came back in another browser/).length).toBeGreaterThanOrEqual(1);
    await waitFor(() => expect(router.state.location.search).toBe(''));
  });

  it('a Bluesky code is traded for a session once', async () => {
    const user = makeSelfUser({ id: 45, displayName: 'Sky', username: 'sky' });
    const fetchMock = mockFetch((url) => {
      if (url === '/api/auth/methods') return jsonResponse(ALL);
      if (url === '/api/auth/bluesky/exchange') return jsonResponse({ token: 'tok-45', user });
      return jsonResponse(user);
    });
    const { router } = renderApp('/login?bluesky_code=abc');
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(fetchMock.mock.calls.filter(([url]) => url === '/api/auth/bluesky/exchange')).toHaveLength(1);
  });
});
