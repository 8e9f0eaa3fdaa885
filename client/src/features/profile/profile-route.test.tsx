import type { SelfUser, UpdateUserBody } from '@shared/schemas/user';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { readStoredSession, writeStoredSession } from '@/lib/session';
import { makeSelfUser } from '@/test/fixtures';
import { type FetchHandler, jsonResponse, mockFetch, renderApp } from '@/test/utils';

/** Signed in as user 7; GET answers `user`, PUT answers `onPut` (default: the user with the body applied). */
function signedIn(user: SelfUser, onPut?: FetchHandler, extra?: FetchHandler) {
  writeStoredSession({ token: 'tok-7', userId: 7 });
  return mockFetch((url, init) => {
    const method = init.method ?? 'GET';
    if (url === '/api/users/7' && method === 'GET') return jsonResponse(user);
    if (url === '/api/users/7' && method === 'PUT') {
      if (onPut) return onPut(url, init);
      const body = JSON.parse(String(init.body)) as UpdateUserBody;
      return jsonResponse({
        ...user,
        ...body,
        matchPreferences: { ...user.matchPreferences, ...body.matchPreferences },
      });
    }
    if (extra) return extra(url, init);
    return jsonResponse({ error: 'not_found', message: 'Not found' }, { status: 404 });
  });
}

function putBodies(fetchMock: ReturnType<typeof mockFetch>): UpdateUserBody[] {
  return fetchMock.mock.calls
    .filter(([url, init]) => url === '/api/users/7' && init?.method === 'PUT')
    .map(([, init]) => JSON.parse(String(init?.body)) as UpdateUserBody);
}

async function infoCard() {
  return within(await screen.findByTestId('profile-info-card'));
}

describe('/profile: profile information', () => {
  it("saves the edited fields with one PUT and says 'Profile Updated'", async () => {
    const fetchMock = signedIn(makeSelfUser());
    renderApp('/profile');
    const card = await infoCard();
    fireEvent.change(card.getByLabelText('Display name'), { target: { value: '  Ada Lovelace ' } });
    fireEvent.change(card.getByLabelText('Social tagline'), { target: { value: 'Board games' } });
    fireEvent.change(card.getByLabelText('Dating tagline'), { target: { value: '' } });
    fireEvent.change(card.getByRole('spinbutton', { name: 'Minimum match %' }), { target: { value: '40' } });
    fireEvent.click(card.getByRole('button', { name: 'Save' }));

    expect(await screen.findByText('Profile Updated')).toBeTruthy();
    expect(putBodies(fetchMock)).toEqual([
      {
        displayName: 'Ada Lovelace',
        romanticTagline: null,
        platonicTagline: 'Board games',
        professionalTagline: null,
        matchPreferences: { minMatchPercentage: 40 },
      },
    ]);
    await waitFor(() => expect(screen.getByTestId('user-display-name').textContent).toBe('Ada Lovelace'));
    expect(screen.getByTestId('profile-tagline').textContent).toBe('No dating tagline set');
  });

  it("shows 'Failed to update profile' with the server's message when the save fails", async () => {
    signedIn(makeSelfUser(), () =>
      jsonResponse({ error: 'validation_error', message: 'Display name is too rude.' }, { status: 400 }),
    );
    renderApp('/profile');
    const card = await infoCard();
    fireEvent.change(card.getByLabelText('Display name'), { target: { value: 'Rude' } });
    fireEvent.click(card.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText('Failed to update profile')).toBeTruthy();
    expect(screen.getByText('Display name is too rude.')).toBeTruthy();
    expect(screen.getByTestId('user-display-name').textContent).toBe('Ada Listener');
  });

  it('requires a display name and refuses an out-of-range percentage without sending', async () => {
    const fetchMock = signedIn(makeSelfUser());
    renderApp('/profile');
    const card = await infoCard();
    fireEvent.change(card.getByLabelText('Display name'), { target: { value: '   ' } });
    fireEvent.change(card.getByRole('spinbutton', { name: 'Minimum match %' }), { target: { value: '120' } });
    fireEvent.click(card.getByRole('button', { name: 'Save' }));
    expect(await card.findByText('Display name is required')).toBeTruthy();
    expect(card.getByText('Choose a whole number from 0 to 100')).toBeTruthy();
    expect(card.getByLabelText('Display name').getAttribute('aria-invalid')).toBe('true');
    expect(putBodies(fetchMock)).toEqual([]);
  });
});

describe('/profile: listening quiz', () => {
  it('saves an answer with the whole set of answers and shows the real completion', async () => {
    const fetchMock = signedIn(makeSelfUser({ quizAnswers: { when: 'commute' } }));
    renderApp('/profile');
    const quiz = within(await screen.findByTestId('quiz-card'));
    expect(screen.getByTestId('quiz-completion').textContent).toBe('20% complete');
    expect(quiz.getByRole('radio', { name: 'On my commute' })).toHaveProperty('checked', true);

    fireEvent.click(quiz.getByRole('radio', { name: 'Around 1.5x' }));
    await waitFor(() => expect(putBodies(fetchMock)).toEqual([{ quizAnswers: { when: 'commute', speed: '1.5x' } }]));
    await waitFor(() => expect(screen.getByTestId('quiz-completion').textContent).toBe('40% complete'));
    expect(quiz.getByRole('progressbar', { name: 'Quiz completion' }).getAttribute('aria-valuenow')).toBe('40');
    expect(quiz.getByRole('radio', { name: 'Around 1.5x' })).toHaveProperty('checked', true);
  });

  it('rolls the answer back and says so when saving it fails', async () => {
    signedIn(makeSelfUser(), () => jsonResponse({ error: 'server_error', message: 'Down' }, { status: 500 }));
    renderApp('/profile');
    const quiz = within(await screen.findByTestId('quiz-card'));
    fireEvent.click(quiz.getByRole('radio', { name: 'Working out' }));
    expect(await screen.findByText('Failed to update profile')).toBeTruthy();
    await waitFor(() => expect(screen.getByTestId('quiz-completion').textContent).toBe('0% complete'));
    expect(quiz.getByRole('radio', { name: 'Working out' })).toHaveProperty('checked', false);
  });
});

describe('/profile: your data', () => {
  it('deletes the account only after DELETE is typed, then ends the session and goes to /login', async () => {
    const deletes: unknown[] = [];
    signedIn(makeSelfUser(), undefined, (url, init) => {
      if (url === '/api/users/7' && init.method === 'DELETE') {
        deletes.push(JSON.parse(String(init.body)));
        return jsonResponse({ ok: true });
      }
      return jsonResponse({ error: 'not_found', message: 'Not found' }, { status: 404 });
    });
    const { router } = renderApp('/profile');
    const dataCard = within(await screen.findByTestId('your-data-card'));
    fireEvent.click(dataCard.getByRole('button', { name: 'Delete account' }));
    const dialog = within(await screen.findByTestId('delete-account-dialog'));
    const confirm = dialog.getByRole('button', { name: 'Delete account' });
    expect(confirm).toHaveProperty('disabled', true);
    fireEvent.change(dialog.getByLabelText('Type DELETE to confirm'), { target: { value: 'delete' } });
    expect(confirm).toHaveProperty('disabled', true);
    fireEvent.submit(confirm.closest('form') as HTMLFormElement);
    expect(await dialog.findByText('Type DELETE to confirm.')).toBeTruthy();
    expect(deletes).toEqual([]);

    fireEvent.change(dialog.getByLabelText('Type DELETE to confirm'), { target: { value: 'DELETE' } });
    fireEvent.click(confirm);
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(deletes).toEqual([{ confirm: 'DELETE' }]);
    expect(await screen.findByText('Account deleted')).toBeTruthy();
    expect(readStoredSession()).toBeNull();
  });

  it('downloads the export as a JSON file through an object URL', async () => {
    const exportBody = { exportedAt: '2026-11-23T00:00:00.000Z', account: { username: 'ada' } };
    signedIn(makeSelfUser(), undefined, (url) =>
      url === '/api/users/7/export'
        ? jsonResponse(exportBody)
        : jsonResponse({ error: 'not_found', message: 'Not found' }, { status: 404 }),
    );
    const blobs: Blob[] = [];
    const createObjectURL = vi.fn((blob: Blob) => {
      blobs.push(blob);
      return 'blob:export';
    });
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    const clicked: HTMLAnchorElement[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this);
    });
    renderApp('/profile');
    const dataCard = within(await screen.findByTestId('your-data-card'));
    fireEvent.click(dataCard.getByRole('button', { name: 'Download my data' }));
    await waitFor(() => expect(clicked).toHaveLength(1));
    expect(clicked[0]?.download).toMatch(/^podmatch-data-ada-\d{4}-\d{2}-\d{2}\.json$/);
    expect(JSON.parse(await (blobs[0] as Blob).text())).toEqual(exportBody);
  });

  it('shows why a download failed', async () => {
    signedIn(makeSelfUser(), undefined, () =>
      jsonResponse({ error: 'server_error', message: 'Export is resting.' }, { status: 500 }),
    );
    renderApp('/profile');
    const dataCard = within(await screen.findByTestId('your-data-card'));
    fireEvent.click(dataCard.getByRole('button', { name: 'Download my data' }));
    expect(await dataCard.findByText('Export is resting.')).toBeTruthy();
    expect(screen.getByText('Download failed')).toBeTruthy();
  });
});
