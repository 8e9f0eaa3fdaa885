import { JOB_ERROR_TEXTS } from '@shared/events';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { importResultToast, OpmlImport } from './opml-import';
import { OPML_MAX_BYTES } from './podcast-queries';

// A stand-in for the socket.io client, so the test can play 'job:status' events from the worker.
const fake = await vi.hoisted(async () => (await import('@/test/fake-socket')).createFakeSocket());

vi.mock('socket.io-client', () => ({ io: () => fake.socket }));

const UPLOAD_URL = '/api/users/7/podcasts/opml';
const OPML =
  '<?xml version="1.0"?><opml version="2.0"><body><outline text="A" xmlUrl="https://a.example/rss"/></body></opml>';

function fileInput() {
  return screen.getByTestId('opml-file-input') as HTMLInputElement;
}

function choose(file: File) {
  fireEvent.change(fileInput(), { target: { files: [file] } });
}

describe('OpmlImport', () => {
  it('uploads the file as multipart field "opml", toasts the result and follows the feed reading', async () => {
    let reply!: (response: Response) => void;
    const answer = new Promise<Response>((resolve) => {
      reply = resolve;
    });
    const fetchMock = mockFetch((url, init) => {
      if (url === UPLOAD_URL && init.method === 'POST') return answer;
      if (url === '/api/users/7/podcasts') return jsonResponse([]);
      return jsonResponse({}, { status: 404 });
    });
    renderWithProviders(<OpmlImport userId={7} />);

    expect(fileInput().getAttribute('accept')).toBe('.opml,.xml,text/xml,application/xml,text/x-opml');
    choose(new File([OPML], 'subscriptions.opml', { type: 'text/x-opml' }));
    await screen.findByRole('button', { name: 'Importing…' });
    await act(async () => {
      reply(
        jsonResponse(
          { feeds: 12, added: 12, alreadyInLibrary: 0, skipped: 0, notAdded: 0, limitNote: null, jobIds: ['41', '42'] },
          { status: 202 },
        ),
      );
    });

    await screen.findByText('Imported 12 podcasts — reading their feeds…', { selector: 'li *' });
    const call = fetchMock.mock.calls.find(([url]) => url === UPLOAD_URL);
    const body = call?.[1]?.body;
    expect(body).toBeInstanceOf(FormData);
    const sent = (body as FormData).get('opml') as File;
    expect(sent.name).toBe('subscriptions.opml');
    expect(await sent.text()).toBe(OPML);
    expect([...(body as FormData).keys()]).toEqual(['opml']);
    // The JSON content type is not forced: the browser sets the multipart boundary.
    expect(new Headers(call?.[1]?.headers).get('Content-Type')).toBeNull();

    act(() => {
      fake.emit('job:status', { jobId: '41', name: 'podcasts.sync', state: 'active', progress: 50 });
      // Another job's event (typed by name) does not count towards the import.
      fake.emit('job:status', { jobId: '99', name: 'avatar.generate', state: 'completed', progress: 100 });
    });
    await screen.findByText(/Reading feeds… 25%/);

    // The library refetch after each job is the realtime bridge's (realtime-bridge.test.tsx).
    act(() => {
      fake.emit('job:status', { jobId: '41', name: 'podcasts.sync', state: 'completed', progress: 100 });
    });
    await screen.findByText(/Reading feeds… 50%/);

    act(() => {
      fake.emit('job:status', { jobId: '42', name: 'podcasts.sync', state: 'completed', progress: 100 });
    });
    await waitFor(() => expect(screen.queryByText(/Reading feeds/)).toBeNull());
  });

  it('remembers job events that arrive before the upload answer', async () => {
    let reply!: (response: Response) => void;
    mockFetch((url) => {
      if (url === UPLOAD_URL) {
        return new Promise<Response>((resolve) => {
          reply = resolve;
        });
      }
      return jsonResponse([]);
    });
    renderWithProviders(<OpmlImport userId={7} />);
    choose(new File([OPML], 'a.opml'));
    await screen.findByRole('button', { name: 'Importing…' });
    act(() => {
      fake.emit('job:status', { jobId: '7', name: 'podcasts.sync', state: 'active', progress: 0 });
      fake.emit('job:status', { jobId: '7', name: 'podcasts.sync', state: 'completed', progress: 100 });
    });
    await act(async () => {
      reply(
        jsonResponse(
          { feeds: 1, added: 1, alreadyInLibrary: 0, skipped: 0, notAdded: 0, limitNote: null, jobIds: ['7'] },
          { status: 202 },
        ),
      );
    });
    await screen.findByRole('button', { name: 'Import OPML' });
    // The job already finished: no progress indicator is left waiting.
    expect(screen.queryByText(/Reading feeds/)).toBeNull();
  });

  it("a failed feed job toasts its code's text", async () => {
    mockFetch((url) =>
      url === UPLOAD_URL
        ? jsonResponse(
            { feeds: 1, added: 1, alreadyInLibrary: 0, skipped: 0, notAdded: 0, limitNote: null, jobIds: ['8'] },
            { status: 202 },
          )
        : jsonResponse([]),
    );
    renderWithProviders(<OpmlImport userId={7} />);
    choose(new File([OPML], 'a.opml'));
    await screen.findByText(/Reading feeds/);
    act(() => {
      fake.emit('job:status', {
        jobId: '8',
        name: 'podcasts.sync',
        state: 'failed',
        progress: 0,
        error: { code: 'feed_unreachable', message: 'getaddrinfo ENOTFOUND a.example' },
      });
    });
    await screen.findByText('Some feeds could not be read');
    screen.getByText(JOB_ERROR_TEXTS['podcasts.sync'].feed_unreachable);
    expect(screen.queryByText(/ENOTFOUND/)).toBeNull();
    await waitFor(() => expect(screen.queryByText(/Reading feeds/)).toBeNull());
  });

  it("shows the server's message when the file is refused (400)", async () => {
    mockFetch(() =>
      jsonResponse(
        { error: 'bad_request', message: 'This file is not OPML: no <opml> root element.' },
        { status: 400 },
      ),
    );
    renderWithProviders(<OpmlImport userId={7} />);
    choose(new File(['hello'], 'notes.xml', { type: 'text/xml' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('This file is not OPML: no <opml> root element.');
    await screen.findByText('Import failed');
    screen.getByRole('button', { name: 'Import OPML' });
  });

  it("shows the server's message for a 413", async () => {
    mockFetch(() =>
      jsonResponse({ error: 'bad_upload', message: 'The OPML file is larger than 1 MB.' }, { status: 413 }),
    );
    renderWithProviders(<OpmlImport userId={7} />);
    choose(new File(['<opml/>'], 'big.opml'));
    expect((await screen.findByRole('alert')).textContent).toBe('The OPML file is larger than 1 MB.');
  });

  it('refuses files over 1 MB before uploading', () => {
    const fetchMock = mockFetch(() => jsonResponse({}));
    renderWithProviders(<OpmlImport userId={7} />);
    choose(new File([new Uint8Array(OPML_MAX_BYTES + 1)], 'huge.opml'));
    expect(screen.getByRole('alert').textContent).toBe('huge.opml is 1.1 MB: OPML files can be at most 1 MB.');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('words the result toast for duplicates, skipped entries and nothing new', () => {
    expect(
      importResultToast({
        feeds: 3,
        added: 1,
        alreadyInLibrary: 2,
        skipped: 1,
        notAdded: 0,
        limitNote: null,
        jobIds: [],
      }),
    ).toEqual({
      title: 'Imported 1 podcast',
      description: '2 podcasts were already in your library. 1 entry without a usable feed URL skipped.',
    });
    expect(
      importResultToast({
        feeds: 0,
        added: 0,
        alreadyInLibrary: 0,
        skipped: 2,
        notAdded: 0,
        limitNote: null,
        jobIds: [],
      }).title,
    ).toBe('No podcasts found in that file');
    expect(
      importResultToast({
        feeds: 2,
        added: 0,
        alreadyInLibrary: 2,
        skipped: 0,
        notAdded: 0,
        limitNote: null,
        jobIds: [],
      }).title,
    ).toBe('No new podcasts in that file');
  });

  it('passes on the limit the server applied', () => {
    const limitNote = 'At most 500 shows new to PodMatch can be added per day: 3 were left out.';
    expect(
      importResultToast({ feeds: 5, added: 2, alreadyInLibrary: 0, skipped: 0, notAdded: 3, limitNote, jobIds: ['1'] }),
    ).toEqual({ title: 'Imported 2 podcasts — reading their feeds…', description: limitNote });
  });
});
