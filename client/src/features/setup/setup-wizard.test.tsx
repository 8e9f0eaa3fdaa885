import type { SelfUser } from '@shared/schemas/user';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { writeStoredSession } from '@/lib/session';
import { makeSelfUser } from '@/test/fixtures';
import { jsonResponse, mockFetch, renderApp } from '@/test/utils';

/**
 * User 5 in the state the test gives, signed in. PUT /api/users/5 merges its body into the user
 * (or answers `putError`); every PUT body is recorded in `puts`.
 */
function wizard(overrides: Partial<SelfUser> = {}, putError?: { status: number; message: string }) {
  let user = makeSelfUser({ id: 5, username: 'sam', displayName: 'Sam', setupComplete: false, ...overrides });
  const puts: Record<string, unknown>[] = [];
  writeStoredSession({ token: 'tok-5', userId: 5 });
  mockFetch((url, init) => {
    const method = init.method ?? 'GET';
    if (url === '/api/users/5' && method === 'GET') return jsonResponse(user);
    if (url === '/api/users/5' && method === 'PUT') {
      const body = JSON.parse(String(init.body)) as Record<string, unknown>;
      puts.push(body);
      if (putError) return jsonResponse({ error: 'bad', message: putError.message }, { status: putError.status });
      user = { ...user, ...body };
      return jsonResponse(user);
    }
    if (url === '/api/users/5/podcasts') return jsonResponse([]);
    if (url.startsWith('/api/users/5/feed-counts')) return jsonResponse({ romantic: 0, platonic: 0, professional: 0 });
    if (url.startsWith('/api/users/5/feed')) return jsonResponse([]);
    return jsonResponse({ error: 'not_found', message: 'Not found' }, { status: 404 });
  });
  const view = renderApp('/setup');
  return { ...view, puts };
}

const stepHeading = (name: string) => screen.findByRole('heading', { level: 2, name });
const progress = () => screen.getByRole('progressbar', { name: 'Setup progress' }).getAttribute('aria-valuenow');

describe('setup wizard', () => {
  it('opens at the first step with progress 1/5 and later steps not clickable', async () => {
    wizard();
    await stepHeading('Choose Intent');
    expect(progress()).toBe('20');
    expect(screen.getByRole('button', { name: 'Step 1: Choose Intent' }).getAttribute('aria-current')).toBe('step');
    expect(screen.getByRole('button', { name: 'Step 2: Profile Info' })).toHaveProperty('disabled', true);
    expect(screen.getByRole('button', { name: 'Step 5: Video Intro' })).toHaveProperty('disabled', true);
  });

  it('resumes at the saved step', async () => {
    wizard({ setupStep: 2 });
    await stepHeading('Profile Photo');
    expect(progress()).toBe('60');
    expect(screen.getByText('Step 3 of 5')).toBeTruthy();
  });

  it('saves each step change, with the profile fields once there is a display name', async () => {
    const { puts } = wizard();
    fireEvent.click(await screen.findByRole('button', { name: 'Next' }));
    await stepHeading('Profile Info');
    await waitFor(() => expect(puts).toHaveLength(1));
    expect(puts[0]).toMatchObject({ setupStep: 1, displayName: 'Sam' });
    expect(progress()).toBe('40');
  });

  it('Next on Profile Info is disabled without a display name', async () => {
    const { puts } = wizard({ setupStep: 1 });
    await stepHeading('Profile Info');
    const name = screen.getByLabelText('Display name');
    const next = screen.getByRole('button', { name: 'Next' });
    fireEvent.change(name, { target: { value: '   ' } });
    expect(next).toHaveProperty('disabled', true);
    expect(screen.getByText('Display name is required')).toBeTruthy();
    fireEvent.change(name, { target: { value: 'Sam Rivers' } });
    fireEvent.change(screen.getByLabelText('Network tagline'), { target: { value: 'Building audio tools' } });
    expect(next).toHaveProperty('disabled', false);
    fireEvent.click(next);
    await stepHeading('Profile Photo');
    await waitFor(() => expect(puts).toHaveLength(1));
    expect(puts[0]).toEqual({
      displayName: 'Sam Rivers',
      romanticTagline: 'Into true-crime and long walks',
      platonicTagline: null,
      professionalTagline: 'Building audio tools',
      setupStep: 2,
    });
  });

  it.each([null, '/media/avatars/0123abcd.webp'])(
    'Next on Profile Photo is disabled without an uploaded picture (picture %s)',
    async (profilePicture) => {
      wizard({ setupStep: 2, profilePicture });
      await stepHeading('Profile Photo');
      expect(screen.getByRole('button', { name: 'Next' })).toHaveProperty('disabled', true);
      expect(screen.getByTestId('picture-upload')).toBeTruthy();
    },
  );

  it('with a picture, Next on Profile Photo goes on to the streaming step', async () => {
    wizard({ setupStep: 2, profilePicture: '/media/pictures/0123abcd.webp' });
    await stepHeading('Profile Photo');
    fireEvent.click(screen.getByRole('button', { name: 'Next' }));
    await stepHeading('Streaming connection');
    expect(screen.getByRole('button', { name: 'Import OPML' })).toBeTruthy();
    expect(screen.getByRole('searchbox')).toBeTruthy();
    expect(screen.getByText(/Matching is based on the podcasts you share/)).toBeTruthy();
  });

  it("'Skip for now' on the streaming step goes to Video Intro and saves the step", async () => {
    const { puts } = wizard({ setupStep: 3 });
    await stepHeading('Streaming connection');
    fireEvent.click(screen.getByRole('button', { name: 'Skip for now' }));
    await stepHeading('Video Intro');
    await waitFor(() => expect(puts.at(-1)).toMatchObject({ setupStep: 4 }));
    // No podcast yet: the AI video card says why it cannot generate.
    expect(await within(screen.getByTestId('setup-video-slot')).findByText('Requirements Not Met')).toBeTruthy();
    expect(within(screen.getByLabelText('Profile summary')).getByText('Sam')).toBeTruthy();
  });

  it('clicking an earlier step indicator goes back to it and saves it', async () => {
    const { puts } = wizard({ setupStep: 3 });
    await stepHeading('Streaming connection');
    expect(screen.getByRole('button', { name: 'Step 5: Video Intro' })).toHaveProperty('disabled', true);
    fireEvent.click(screen.getByRole('button', { name: 'Step 2: Profile Info' }));
    await stepHeading('Profile Info');
    await waitFor(() => expect(puts.at(-1)).toMatchObject({ setupStep: 1 }));
    // The current step's indicator does nothing more.
    fireEvent.click(screen.getByRole('button', { name: 'Step 2: Profile Info' }));
    expect(puts).toHaveLength(1);
    fireEvent.click(screen.getByRole('button', { name: 'Back' }));
    await stepHeading('Choose Intent');
  });

  it("'Complete Setup' saves, shows 'Setup Complete' and goes to the feed", async () => {
    const { puts, router } = wizard({ setupStep: 4 });
    await stepHeading('Video Intro');
    fireEvent.click(screen.getByRole('button', { name: 'Complete Setup' }));
    await screen.findByText('Setup Complete');
    expect(screen.getByText('Your profile has been set up successfully!')).toBeTruthy();
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(puts.at(-1)).toMatchObject({ setupComplete: true, displayName: 'Sam', setupStep: 4 });
    await screen.findByTestId('user-display-name');
  });

  it("'Skip this step' completes setup too", async () => {
    const { puts, router } = wizard({ setupStep: 4 });
    await stepHeading('Video Intro');
    fireEvent.click(screen.getByRole('button', { name: 'Skip this step' }));
    await screen.findByText('Setup Complete');
    await waitFor(() => expect(router.state.location.pathname).toBe('/'));
    expect(puts.at(-1)).toMatchObject({ setupComplete: true });
  });

  it("a failed completion shows 'Error completing setup' with the server's message and stays", async () => {
    const { router } = wizard({ setupStep: 4 }, { status: 500, message: 'Database is resting' });
    await stepHeading('Video Intro');
    fireEvent.click(screen.getByRole('button', { name: 'Complete Setup' }));
    await screen.findByText('Error completing setup');
    expect(screen.getByText('Database is resting')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/setup');
    expect(screen.getByRole('button', { name: 'Complete Setup' })).toHaveProperty('disabled', false);
  });

  it('a person who completed setup may open it again, from the first step', async () => {
    const { router } = wizard({ setupComplete: true, setupStep: 4 });
    await stepHeading('Choose Intent');
    expect(router.state.location.pathname).toBe('/setup');
  });
});
