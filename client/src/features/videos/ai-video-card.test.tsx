import type { Intent } from '@shared/constants';
import { VIDEO_POLLING, VIDEO_TEXTS } from '@shared/schemas/videos';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/test/utils';
import {
  introsWithVideo,
  jobEvent,
  makeProject,
  podcastEntry,
  VIDEO_URL,
  type VideoServer,
  videoServer,
} from '@/test/video';
import { AI_VIDEO_BADGES, AiVideoCard } from './ai-video-card';

const fake = await vi.hoisted(async () => (await import('@/test/fake-socket')).createFakeSocket());
vi.mock('socket.io-client', () => ({ io: (options: unknown) => fake.io(options) }));

const { intervalMs, maxAttempts } = VIDEO_POLLING.setup;
const TEXTS = VIDEO_TEXTS.setup;

function card(intent: Intent = 'romantic', props: { intentTagline?: string | null; hasPhoto?: boolean } = {}) {
  return (
    <AiVideoCard
      userId={7}
      intent={intent}
      hasPhoto={props.hasPhoto ?? true}
      intentTagline={props.intentTagline ?? null}
      genericTagline={null}
    />
  );
}

/** The card with an intent the test can change, as the wizard's intent switcher would. */
let setIntent: (intent: Intent) => void = () => {};
function Harness() {
  const [intent, set] = useState<Intent>('romantic');
  setIntent = set;
  return card(intent);
}

const badge = () => screen.getByTestId('ai-video-badge').textContent;
const progress = () => screen.getByRole('progressbar', { name: 'AI video progress' }).getAttribute('aria-valuenow');
const generate = () => screen.getByRole('button', { name: 'Generate AI Video' });

async function elapse(ms: number) {
  await act(() => vi.advanceTimersByTimeAsync(ms));
}

async function startGenerating(): Promise<number> {
  await waitFor(() => expect(generate()).toHaveProperty('disabled', false));
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  fireEvent.click(generate());
  await elapse(0);
  expect(badge()).toBe(AI_VIDEO_BADGES.processing);
  return Date.now();
}

/** Clicks Generate with real timers and waits for the failure text. */
async function startFails(server: Partial<VideoServer>, message: string) {
  videoServer(server);
  renderWithProviders(<Harness />);
  await waitFor(() => expect(generate()).toHaveProperty('disabled', false));
  fireEvent.click(generate());
  await waitFor(() => expect(screen.getByTestId('ai-video-error').textContent).toBe(message));
  expect(badge()).toBe(AI_VIDEO_BADGES.failed);
  expect(screen.getAllByText(TEXTS.failedToast).length).toBeGreaterThan(0);
}

describe('AiVideoCard (setup reading: 12 s x 15, only while the socket is down)', () => {
  beforeEach(() => fake.reset());
  afterEach(() => vi.useRealTimers());

  it('shows the checklist, Ready to Generate, and Requirements Not Met without a visible podcast', async () => {
    videoServer({ podcasts: [podcastEntry(1, 'Hidden', { hidden: true })] });
    renderWithProviders(card('romantic', { hasPhoto: false }));
    expect(await screen.findByText('Requirements Not Met')).toBeTruthy();
    expect(badge()).toBe(AI_VIDEO_BADGES.idle);
    expect(generate()).toHaveProperty('disabled', true);
    const list = screen.getByTestId('ai-video-checklist').textContent ?? '';
    expect(list).toContain('Profile photo: not added');
    expect(list).toContain('Podcasts: 0 podcasts');
    expect(list).toContain('Tagline (Auto-generated): Podcast lover');
  });

  it('names the tagline kind: Custom for the intent tagline', async () => {
    videoServer();
    renderWithProviders(card('romantic', { intentTagline: 'Night owl' }));
    await waitFor(() => expect(screen.getByTestId('ai-video-checklist').textContent).toContain('Podcasts: 1 podcast'));
    expect(screen.getByTestId('ai-video-checklist').textContent).toContain('Tagline (Custom): Night owl');
    expect(screen.queryByText('Requirements Not Met')).toBeNull();
  });

  it('with the socket connected makes no status request: progress and the outcome arrive by push', async () => {
    fake.socket.connected = true;
    const server = videoServer();
    renderWithProviders(card());
    await startGenerating();
    expect(progress()).toBe('50');

    await elapse(intervalMs * 6);
    fake.emit('job:status', jobEvent('video.render', 'active', 72));
    await elapse(0);
    expect(progress()).toBe('72');
    await elapse(intervalMs * 6);
    expect(server.statusTimes).toEqual([]);

    server.intros = introsWithVideo();
    fake.emit('job:status', jobEvent('video.render', 'completed', 100));
    await elapse(0);
    expect(badge()).toBe(AI_VIDEO_BADGES.ready);
    expect(progress()).toBe('100');
    // View Video plays it here, in the card (no new tab with the raw file).
    expect(screen.queryByTestId('ai-video-inline')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'View Video' }));
    expect(screen.getByTestId('ai-video-inline').getAttribute('src')).toBe(VIDEO_URL);
    expect(screen.getByRole('button', { name: 'Hide Video' }).getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByRole('button', { name: 'Regenerate' })).toBeTruthy();
    expect(screen.getAllByText(TEXTS.successToast).length).toBeGreaterThan(0);
    expect(server.statusTimes).toEqual([]);
  });

  it(`with the socket down polls every ${intervalMs} ms (+3 % a poll) and times out after ${maxAttempts}`, async () => {
    const server = videoServer();
    renderWithProviders(card());
    const t0 = await startGenerating();

    await elapse(intervalMs);
    expect(progress()).toBe('53');
    await elapse(intervalMs);
    expect(progress()).toBe('56');
    await elapse(intervalMs * (maxAttempts - 3));
    expect(badge()).toBe(AI_VIDEO_BADGES.processing);
    await elapse(intervalMs);
    expect(server.statusTimes.map((t) => t - t0)).toEqual(
      Array.from({ length: maxAttempts }, (_, i) => intervalMs * (i + 1)),
    );
    expect(badge()).toBe(AI_VIDEO_BADGES.failed);
    expect(screen.getByTestId('ai-video-error').textContent).toBe(TEXTS.timedOut);
    expect(screen.getAllByText(TEXTS.failedToast).length).toBeGreaterThan(0);

    await elapse(intervalMs * 3);
    expect(server.statusTimes).toHaveLength(maxAttempts);
  });

  it('progress is capped at 90 while processing', async () => {
    videoServer();
    renderWithProviders(card());
    await startGenerating();
    await elapse(intervalMs * 14);
    expect(progress()).toBe('90');
  });

  it('a failed poll request is retried (and counts as an attempt); completed with a url is done', async () => {
    const server = videoServer({ status: 500 });
    renderWithProviders(card());
    await startGenerating();
    await elapse(intervalMs);
    expect(server.statusTimes).toHaveLength(1);
    expect(badge()).toBe(AI_VIDEO_BADGES.processing);
    server.status = makeProject({ status: 'completed', progress: 100, url: VIDEO_URL });
    await elapse(intervalMs);
    expect(server.statusTimes).toHaveLength(2);
    expect(badge()).toBe(AI_VIDEO_BADGES.ready);
    expect(screen.getByRole('button', { name: 'View Video' })).toBeTruthy();
  });

  it("'failed' without an error says 'Video generation failed for unknown reasons'", async () => {
    const server = videoServer();
    renderWithProviders(card());
    await startGenerating();
    server.status = makeProject({ status: 'failed', error: null });
    await elapse(intervalMs);
    expect(screen.getByTestId('ai-video-error').textContent).toBe(TEXTS.unknownFailure);
    expect(screen.getByRole('button', { name: 'Regenerate' })).toBeTruthy();
  });

  it('a new intent while processing resets to idle and stops polling; a completed card stays completed', async () => {
    const server = videoServer();
    renderWithProviders(<Harness />);
    await startGenerating();
    await elapse(intervalMs);
    expect(server.statusTimes).toHaveLength(1);

    act(() => setIntent('platonic'));
    await elapse(0);
    expect(badge()).toBe(AI_VIDEO_BADGES.idle);
    expect(progress()).toBe('0');
    await elapse(intervalMs * 3);
    expect(server.statusTimes).toHaveLength(1);

    // Generate again for the new intent, complete it, then change the intent: it stays 'Video Ready'.
    fireEvent.click(generate());
    await elapse(0);
    server.status = makeProject({ intent: 'platonic', status: 'completed', progress: 100, url: VIDEO_URL });
    await elapse(intervalMs);
    expect(badge()).toBe(AI_VIDEO_BADGES.ready);
    act(() => setIntent('professional'));
    await elapse(0);
    expect(badge()).toBe(AI_VIDEO_BADGES.ready);
  });

  it("'Video service unavailable' when the service says so; a new intent after a failure resets to idle", async () => {
    await startFails({ service: { available: false, message: 'down' } }, TEXTS.unavailable);
    act(() => setIntent('platonic'));
    expect(badge()).toBe(AI_VIDEO_BADGES.idle);
    expect(screen.queryByTestId('ai-video-error')).toBeNull();
  });

  it("the service check failing shows the server's message", async () => {
    await startFails({ service: 500 }, 'Status check failed on the server');
  });

  it("a refused start shows 'Failed to start video generation ({status})' without a server message", async () => {
    await startFails({ generate: { status: 500, body: 'Internal Server Error' } }, TEXTS.startFailed(500));
  });

  it("a refused start shows the server's message when it sent one", async () => {
    await startFails(
      { generate: { status: 422, body: { error: 'profile_not_ready', message: VIDEO_TEXTS.profileNotReady } } },
      VIDEO_TEXTS.profileNotReady,
    );
  });

  it("a library that cannot be loaded says 'Could not prepare data for video generation'", async () => {
    const server = videoServer();
    const base = server.fetchMock.getMockImplementation();
    server.fetchMock.mockImplementation(async (input, init) =>
      String(input) === '/api/users/7/podcasts'
        ? new Response('boom', { status: 500 })
        : (base as NonNullable<typeof base>)(input, init),
    );
    renderWithProviders(<Harness />);
    await waitFor(() => expect(generate()).toHaveProperty('disabled', false));
    fireEvent.click(generate());
    await waitFor(() => expect(screen.getByTestId('ai-video-error').textContent).toBe(TEXTS.prepareFailed));
  });

  it("an answer without a projectId says 'No project ID returned from video generation service'", async () => {
    await startFails({ generate: { status: 202, body: {} } }, TEXTS.noProjectId);
  });
});
