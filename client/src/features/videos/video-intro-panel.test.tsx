import { VIDEO_POLLING, VIDEO_TEXTS } from '@shared/schemas/videos';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeXhr } from '@/test/fake-xhr';
import { renderWithProviders } from '@/test/utils';
import {
  introsWithVideo,
  jobEvent,
  makeProject,
  PROJECT_ID,
  podcastEntry,
  stubVideoMetadata,
  VIDEO_URL,
  videoServer,
} from '@/test/video';
import { VideoIntroPanel } from './video-intro-panel';

const fake = await vi.hoisted(async () => (await import('@/test/fake-socket')).createFakeSocket());
vi.mock('socket.io-client', () => ({ io: (options: unknown) => fake.io(options) }));

const { intervalMs, maxAttempts } = VIDEO_POLLING.profile;
const TEXTS = VIDEO_TEXTS.profile;

function renderPanel() {
  return renderWithProviders(<VideoIntroPanel userId={7} intent="romantic" />);
}

const generateButton = () => screen.getByRole('button', { name: /Generate AI video/ });
const tab = (name: 'AI video' | 'Upload') => screen.getByRole('tab', { name });
const progress = (name: string) => screen.getByRole('progressbar', { name }).getAttribute('aria-valuenow');

/** Advances the fake clock, letting every request and re-render in between settle. */
async function elapse(ms: number) {
  await act(() => vi.advanceTimersByTimeAsync(ms));
}

/** Loads with real timers, then fakes the clock and clicks Generate; returns the fake time it started. */
async function startGenerating(): Promise<number> {
  await waitFor(() => expect(generateButton()).toHaveProperty('disabled', false));
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  fireEvent.click(generateButton());
  await elapse(0);
  expect(screen.getByTestId('video-generating')).toBeTruthy();
  return Date.now();
}

function push(event: ReturnType<typeof jobEvent>) {
  act(() => fake.emit('job:status', event));
}

describe('VideoIntroPanel (profile reading: 5 s x 12, only while the socket is down)', () => {
  beforeEach(() => fake.reset());
  afterEach(() => vi.useRealTimers());

  it('with the socket connected makes no status request in 60 s: progress and the outcome arrive by push', async () => {
    fake.socket.connected = true;
    const server = videoServer();
    renderPanel();
    expect(await screen.findByTestId('video-intro-empty')).toBeTruthy();
    await startGenerating();

    await elapse(60_000);
    push(jobEvent('video.render', 'active', 70));
    expect(progress('Video generation progress')).toBe('70');
    await elapse(30_000);
    expect(server.statusTimes).toEqual([]);

    server.intros = introsWithVideo();
    push(jobEvent('video.render', 'completed', 100));
    await elapse(0);
    const player = screen.getByTestId('video-intro-player');
    expect(player.getAttribute('src')).toBe(VIDEO_URL);
    expect(player.getAttribute('poster')).toMatch(/-poster\.jpg$/);
    expect(player.hasAttribute('controls')).toBe(true);
    expect(screen.queryByTestId('video-generating')).toBeNull();
    expect(server.statusTimes).toEqual([]);
  });

  it(`with the socket down polls every ${intervalMs} ms, says 'Still working' at attempt 3, times out after ${maxAttempts}`, async () => {
    const server = videoServer();
    renderPanel();
    const t0 = await startGenerating();

    await elapse(intervalMs * 2);
    expect(server.statusTimes.map((t) => t - t0)).toEqual([intervalMs, intervalMs * 2]);
    expect(screen.queryByText(TEXTS.stillWorking)).toBeNull();
    await elapse(intervalMs);
    expect(screen.getByText(TEXTS.stillWorking)).toBeTruthy();

    await elapse(intervalMs * (maxAttempts - 3));
    expect(server.statusTimes.map((t) => t - t0)).toEqual(
      Array.from({ length: maxAttempts }, (_, i) => intervalMs * (i + 1)),
    );
    expect(screen.getAllByText(TEXTS.timeout).length).toBeGreaterThan(0);
    expect(tab('Upload').getAttribute('aria-selected')).toBe('true');

    await elapse(intervalMs * 5);
    expect(server.statusTimes).toHaveLength(maxAttempts);
  });

  it("retries non-OK status answers and says 'Having trouble checking video status' after more than 3", async () => {
    const server = videoServer({ status: 500 });
    renderPanel();
    await startGenerating();
    await elapse(intervalMs * 3);
    expect(server.statusTimes).toHaveLength(3);
    expect(screen.queryByText(TEXTS.troubleChecking)).toBeNull();
    await elapse(intervalMs);
    expect(screen.getByText(TEXTS.troubleChecking)).toBeTruthy();

    // Still polling: a later OK answer completes.
    server.status = makeProject({ status: 'completed', progress: 100, url: VIDEO_URL });
    await elapse(intervalMs);
    expect(server.statusTimes).toHaveLength(5);
    expect(screen.getByTestId('video-intro-player').getAttribute('src')).toBe(VIDEO_URL);
    expect(tab('AI video').getAttribute('aria-selected')).toBe('true');
  });

  it('stops polling when the socket connects and starts again when it drops', async () => {
    const server = videoServer();
    renderPanel();
    await startGenerating();
    await elapse(intervalMs * 2);
    expect(server.statusTimes).toHaveLength(2);

    act(() => fake.setConnected(true));
    await elapse(intervalMs * 6);
    expect(server.statusTimes).toHaveLength(2);

    act(() => fake.setConnected(false));
    await elapse(intervalMs);
    expect(server.statusTimes).toHaveLength(3);
  });

  it('a failed project (by push) shows the job text and selects the Upload tab', async () => {
    fake.socket.connected = true;
    videoServer();
    renderPanel();
    await startGenerating();
    expect(tab('AI video').getAttribute('aria-selected')).toBe('true');
    push(jobEvent('video.render', 'failed', 50, { code: 'unknown', message: 'ffmpeg exited 1' }));
    await elapse(0);
    const notice = screen.getByTestId('video-ai-notice');
    expect(notice.textContent).toContain(TEXTS.failed);
    expect(tab('Upload').getAttribute('aria-selected')).toBe('true');
  });

  it("a failed poll answer ('failed' with its error) selects the Upload tab", async () => {
    const server = videoServer();
    renderPanel();
    await startGenerating();
    server.status = makeProject({ status: 'failed', error: 'Video service unavailable' });
    await elapse(intervalMs);
    expect(screen.getByTestId('video-ai-notice').textContent).toContain('Video service unavailable');
    expect(tab('Upload').getAttribute('aria-selected')).toBe('true');
  });

  it("a start refused with 503 says 'Video Generation Unavailable' and selects Upload", async () => {
    videoServer({ generate: { status: 503, body: { error: 'unavailable', message: 'Video service unavailable' } } });
    renderPanel();
    await waitFor(() => expect(generateButton()).toHaveProperty('disabled', false));
    fireEvent.click(generateButton());
    await waitFor(() =>
      expect(screen.getByTestId('video-ai-notice').textContent).toContain(TEXTS.generationUnavailable),
    );
    expect(tab('Upload').getAttribute('aria-selected')).toBe('true');
  });

  it("any other start failure says 'Could not generate video' with the server's reason", async () => {
    videoServer({
      generate: { status: 422, body: { error: 'profile_not_ready', message: VIDEO_TEXTS.profileNotReady } },
    });
    renderPanel();
    await waitFor(() => expect(generateButton()).toHaveProperty('disabled', false));
    fireEvent.click(generateButton());
    await waitFor(() => expect(screen.getByTestId('video-ai-notice').textContent).toContain(TEXTS.couldNotGenerate));
    expect(screen.getByTestId('video-ai-notice').textContent).toContain(VIDEO_TEXTS.profileNotReady);
    expect(tab('Upload').getAttribute('aria-selected')).toBe('true');
  });

  it("says 'AI Video Service Unavailable' when the service is down, and the button is disabled", async () => {
    videoServer({ service: { available: false, message: VIDEO_TEXTS.noWorker } });
    renderPanel();
    const down = await screen.findByTestId('video-service-down');
    expect(down.textContent).toContain(TEXTS.unavailableTitle);
    expect(down.textContent).toContain(VIDEO_TEXTS.noWorker);
    expect(generateButton()).toHaveProperty('disabled', true);
    fireEvent.click(screen.getByRole('button', { name: 'Upload instead' }));
    expect(tab('Upload').getAttribute('aria-selected')).toBe('true');
  });

  it('without a visible podcast the button is disabled with the SPEC text', async () => {
    videoServer({ podcasts: [podcastEntry(1, 'Hidden Show', { hidden: true })] });
    renderPanel();
    expect((await screen.findByTestId('video-profile-not-ready')).textContent).toBe(VIDEO_TEXTS.profileNotReady);
    expect(generateButton()).toHaveProperty('disabled', true);
  });

  it('resumes an unfinished project after a reload, on the tab of its source', async () => {
    fake.socket.connected = true;
    const server = videoServer();
    server.intros.romantic.latest = makeProject({ source: 'upload', status: 'processing', progress: 60 });
    renderPanel();
    expect(await screen.findByTestId('video-processing')).toBeTruthy();
    expect(tab('Upload').getAttribute('aria-selected')).toBe('true');
    expect(progress('Processing progress')).toBe('60');
  });
});

describe('VideoIntroPanel upload tab', () => {
  beforeEach(() => fake.reset());

  function chooseFile(file: File) {
    fireEvent.change(screen.getByTestId('video-file-input'), { target: { files: [file] } });
  }

  async function openUpload() {
    renderPanel();
    await screen.findByTestId('video-intro-empty');
    fireEvent.mouseDown(tab('Upload'));
    fireEvent.click(tab('Upload'));
    await waitFor(() => expect(tab('Upload').getAttribute('aria-selected')).toBe('true'));
  }

  const saveButton = () => screen.getByRole('button', { name: /Save video/ });

  it('refuses a non-video, a file over 50MB and one longer than 30 s before any upload', async () => {
    videoServer();
    const xhr = vi.fn();
    vi.stubGlobal('XMLHttpRequest', xhr);
    let seconds = 45;
    stubVideoMetadata(() => seconds);
    await openUpload();

    chooseFile(new File(['hello'], 'notes.txt', { type: 'text/plain' }));
    expect((await screen.findByRole('alert')).textContent).toBe(VIDEO_TEXTS.notAVideo);

    const big = new File(['x'], 'big.mp4', { type: 'video/mp4' });
    Object.defineProperty(big, 'size', { value: 50 * 1024 * 1024 + 1 });
    chooseFile(big);
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe(VIDEO_TEXTS.tooLarge));

    chooseFile(new File(['x'], 'long.mp4', { type: 'video/mp4' }));
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe(VIDEO_TEXTS.tooLong));
    expect(saveButton()).toHaveProperty('disabled', true);

    seconds = 12;
    chooseFile(new File(['x'], 'short.mp4', { type: 'video/mp4' }));
    await waitFor(() => expect(saveButton()).toHaveProperty('disabled', false));
    expect(screen.getByTestId('video-file-name').textContent).toContain('12 s');
    expect(xhr).not.toHaveBeenCalled();
  });

  it('uploads with real progress, then shows Processing until the transcode completes, then the video', async () => {
    fake.socket.connected = true;
    const server = videoServer();
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    const { revokeUrl } = stubVideoMetadata(8);
    await openUpload();

    chooseFile(new File(['x'], 'me.mp4', { type: 'video/mp4' }));
    await waitFor(() => expect(saveButton()).toHaveProperty('disabled', false));
    expect(revokeUrl).toHaveBeenCalledWith('blob:video-under-test');
    fireEvent.click(saveButton());
    const xhr = FakeXhr.last as FakeXhr;
    expect(xhr.url).toBe('/api/users/7/video-intro?intent=romantic');
    expect(xhr.body?.get('video')).toBeTruthy();
    act(() => xhr.progress(30, 100));
    expect(progress('Upload progress')).toBe('30');
    act(() => xhr.respond(202, { projectId: PROJECT_ID }));

    const processing = await screen.findByTestId('video-processing');
    expect(within(processing).getByRole('status').textContent).toMatch(/^Processing/);
    push(jobEvent('media.transcode', 'active', 75));
    expect(progress('Processing progress')).toBe('75');

    server.intros = introsWithVideo('romantic', { source: 'upload' });
    push(jobEvent('media.transcode', 'completed', 100));
    await waitFor(() => expect(screen.getByTestId('video-intro-player').getAttribute('src')).toBe(VIDEO_URL));
    expect(screen.queryByTestId('video-processing')).toBeNull();
    expect(server.statusTimes).toEqual([]);
  });

  it("shows the server's refusal of an upload", async () => {
    videoServer();
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    stubVideoMetadata(8);
    await openUpload();
    chooseFile(new File(['x'], 'me.mp4', { type: 'video/mp4' }));
    await waitFor(() => expect(saveButton()).toHaveProperty('disabled', false));
    fireEvent.click(saveButton());
    act(() => FakeXhr.last?.respond(400, { error: 'too_long', message: VIDEO_TEXTS.tooLong }));
    await waitFor(() => expect(screen.getByTestId('video-upload-status').textContent).toBe(VIDEO_TEXTS.tooLong));
  });

  it('a failed transcode shows its job text', async () => {
    fake.socket.connected = true;
    videoServer();
    vi.stubGlobal('XMLHttpRequest', FakeXhr);
    stubVideoMetadata(8);
    await openUpload();
    chooseFile(new File(['x'], 'me.mp4', { type: 'video/mp4' }));
    await waitFor(() => expect(saveButton()).toHaveProperty('disabled', false));
    fireEvent.click(saveButton());
    act(() => FakeXhr.last?.respond(202, { projectId: PROJECT_ID }));
    await screen.findByTestId('video-processing');
    push(jobEvent('media.transcode', 'failed', 25, { code: 'unreadable', message: 'moov atom not found' }));
    expect((await screen.findByTestId('video-upload-notice')).textContent).toBe(VIDEO_TEXTS.unreadable);
  });
});
