import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { PodcastArtwork } from '@/components/podcast-artwork';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { MyTopPodcasts } from './my-top-podcasts';
import { makeEntry } from './podcast-test-data';

const LIBRARY_URL = '/api/users/7/podcasts';
/** A proxy URL as the server signs it (docs/image-proxy.md); the client uses it as it comes. */
const SIGNED_ARTWORK = '/api/proxy/image?url=https%3A%2F%2Fimg.example%2Fhh.jpg&name=Hardcore+History&sig=c2lnbmVk';

const entries = [
  makeEntry({
    id: 1,
    timesListened: 12,
    source: 'spotify',
    podcast: { id: 100, name: 'Hardcore History', creator: 'Dan Carlin', imageUrl: SIGNED_ARTWORK },
  }),
  makeEntry({ id: 2, timesListened: 1, source: 'opml', podcast: { id: 101, name: 'Radiolab', creator: 'WNYC' } }),
  makeEntry({ id: 3, hidden: true, source: 'manual', podcast: { id: 102, name: 'Secret Show', creator: null } }),
];

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

function entryRow(name: string) {
  const row = screen.getByText(name).closest('li');
  if (!row) throw new Error(`no row for ${name}`);
  return row;
}

describe('MyTopPodcasts', () => {
  it('lists artwork, name, creator, times listened and the source of each entry', async () => {
    mockFetch((url) => (url === LIBRARY_URL ? jsonResponse(entries) : jsonResponse({}, { status: 404 })));
    renderWithProviders(<MyTopPodcasts userId={7} />);
    screen.getByRole('status', { name: 'Loading podcasts' });

    const list = await screen.findByRole('list', { name: 'My podcasts' });
    expect(within(list).getAllByTestId('library-entry')).toHaveLength(3);
    const first = entryRow('Hardcore History');
    within(first).getByText('Dan Carlin');
    within(first).getByText('Listened 12 times');
    within(first).getByText('From Spotify');
    expect(first.querySelector('img')?.getAttribute('src')).toBe(SIGNED_ARTWORK);
    within(entryRow('Radiolab')).getByText('Listened once');
    within(entryRow('Radiolab')).getByText('From your podcast app');
    // No image: the server's letter placeholder.
    expect(entryRow('Radiolab').querySelector('img')?.getAttribute('src')).toBe('/api/proxy/image?name=Radiolab');
    const secret = entryRow('Secret Show');
    within(secret).getByText('Added by you');
    within(secret).getByText('Hidden');
    expect(secret.getAttribute('data-hidden')).toBe('true');
    within(secret).getByRole('button', { name: 'Show Secret Show' });
    within(first).getByRole('button', { name: 'Hide Hardcore History' });
  });

  it('hides an entry at once (optimistic), sends PUT {hidden: true} and shows "Podcast Updated"', async () => {
    const answer = deferred<Response>();
    const fetchMock = mockFetch((url, init) => {
      if (url === LIBRARY_URL) return jsonResponse(entries);
      if (url === '/api/user-podcasts/1' && init.method === 'PUT') return answer.promise;
      return jsonResponse({}, { status: 404 });
    });
    renderWithProviders(<MyTopPodcasts userId={7} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Hide Hardcore History' }));

    // Before the server answers, the toggle already shows the entry hidden.
    await screen.findByRole('button', { name: 'Show Hardcore History' });
    expect(entryRow('Hardcore History').getAttribute('data-hidden')).toBe('true');
    const call = fetchMock.mock.calls.find(([url]) => url === '/api/user-podcasts/1');
    expect(call?.[1]?.method).toBe('PUT');
    expect(call?.[1]?.body).toBe('{"hidden":true}');

    await act(async () => {
      answer.resolve(jsonResponse({ ...entries[0], hidden: true }));
    });
    await screen.findByText('Podcast Updated');
    screen.getByText('Hardcore History is now hidden from your profile.');
    expect(entryRow('Hardcore History').getAttribute('data-hidden')).toBe('true');
  });

  it('shows a hidden entry again with PUT {hidden: false}', async () => {
    const fetchMock = mockFetch((url, init) => {
      if (url === LIBRARY_URL) return jsonResponse(entries);
      if (url === '/api/user-podcasts/3' && init.method === 'PUT')
        return jsonResponse({ ...entries[2], hidden: false });
      return jsonResponse({}, { status: 404 });
    });
    renderWithProviders(<MyTopPodcasts userId={7} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Show Secret Show' }));
    await screen.findByText('Podcast Updated');
    screen.getByRole('button', { name: 'Hide Secret Show' });
    expect(fetchMock.mock.calls.find(([url]) => url === '/api/user-podcasts/3')?.[1]?.body).toBe('{"hidden":false}');
  });

  it('rolls the toggle back and shows "Failed to update podcast" when the server refuses', async () => {
    mockFetch((url, init) => {
      if (url === LIBRARY_URL) return jsonResponse(entries);
      if (url === '/api/user-podcasts/1' && init.method === 'PUT') {
        return jsonResponse({ error: 'internal', message: 'Database is down' }, { status: 500 });
      }
      return jsonResponse({}, { status: 404 });
    });
    renderWithProviders(<MyTopPodcasts userId={7} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Hide Hardcore History' }));
    await screen.findByText('Failed to update podcast');
    screen.getByText('Database is down');
    screen.getByRole('button', { name: 'Hide Hardcore History' });
    expect(entryRow('Hardcore History').getAttribute('data-hidden')).toBe('false');
  });

  it('removes an entry only after confirming', async () => {
    const fetchMock = mockFetch((url, init) => {
      if (url === LIBRARY_URL) return jsonResponse(entries);
      if (url === '/api/user-podcasts/2' && init.method === 'DELETE') return jsonResponse({ ok: true });
      return jsonResponse({}, { status: 404 });
    });
    renderWithProviders(<MyTopPodcasts userId={7} />);
    fireEvent.click(await screen.findByRole('button', { name: 'Remove Radiolab' }));
    const confirm = screen.getByRole('group', { name: 'Confirm removing Radiolab' });
    fireEvent.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('group', { name: 'Confirm removing Radiolab' })).toBeNull();
    expect(fetchMock.mock.calls.some(([, init]) => init?.method === 'DELETE')).toBe(false);

    fireEvent.click(screen.getByRole('button', { name: 'Remove Radiolab' }));
    fireEvent.click(
      within(screen.getByRole('group', { name: 'Confirm removing Radiolab' })).getByRole('button', { name: 'Remove' }),
    );
    await waitFor(() => expect(screen.queryByText('Radiolab')).toBeNull());
    await screen.findByText('Podcast removed');
    expect(screen.getAllByTestId('library-entry')).toHaveLength(2);
  });

  it('explains the three ways to add podcasts when the library is empty', async () => {
    mockFetch(() => jsonResponse([]));
    renderWithProviders(<MyTopPodcasts userId={7} />);
    const empty = await screen.findByTestId('library-empty');
    within(empty).getByText('No podcasts yet');
    within(empty).getByText(/Connect Spotify/);
    within(empty).getByText(/Import an OPML file/);
    within(empty).getByText(/Search the catalog/);
  });

  it('shows an error with a Retry that refetches', async () => {
    let calls = 0;
    mockFetch(() => {
      calls += 1;
      return calls === 1
        ? jsonResponse({ error: 'internal', message: 'Something broke' }, { status: 500 })
        : jsonResponse(entries);
    });
    renderWithProviders(<MyTopPodcasts userId={7} />);
    const alert = await screen.findByRole('alert');
    within(alert).getByText("Couldn't load your podcasts");
    within(alert).getByText('Something broke');
    fireEvent.click(within(alert).getByRole('button', { name: 'Retry' }));
    await screen.findByText('Hardcore History');
    expect(calls).toBe(2);
  });
});

describe('PodcastArtwork', () => {
  it('falls back once to the letter placeholder, then to a local tile, and never loops', () => {
    const signed = '/api/proxy/image?url=https%3A%2F%2Fimg.example%2Fbroken.jpg&name=Radiolab&sig=c2lnbmVk';
    renderWithProviders(<PodcastArtwork name="Radiolab" imageUrl={signed} />);
    const img = document.querySelector('img') as HTMLImageElement;
    // Remote artwork only through the server's signed proxy URL, never straight from the publisher.
    expect(img.getAttribute('src')).toBe(signed);
    fireEvent.error(img);
    const placeholder = document.querySelector('img') as HTMLImageElement;
    expect(placeholder.getAttribute('src')).toBe('/api/proxy/image?name=Radiolab');
    fireEvent.error(placeholder);
    expect(document.querySelector('img')).toBeNull();
    expect(screen.getByTestId('podcast-artwork-tile').textContent).toBe('R');
  });
});
