import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { jsonResponse, mockFetch, renderWithProviders } from '@/test/utils';
import { PodcastSearch } from './podcast-search';
import { makeEntry, makePodcast } from './podcast-test-data';

const LIBRARY_URL = '/api/users/7/podcasts';
const radiolab = makePodcast({ id: 201, name: 'Radiolab', creator: 'WNYC Studios' });
const radioHeadspace = makePodcast({ id: 202, name: 'Radio Headspace', creator: null });
const owned = makeEntry({ id: 9, podcast: { id: 202, name: 'Radio Headspace' } });

function searchCalls(fetchMock: ReturnType<typeof mockFetch>) {
  return fetchMock.mock.calls.map(([url]) => String(url)).filter((url) => url.startsWith('/api/podcasts/search'));
}

function searchBox() {
  return screen.getByRole('searchbox', { name: 'Add podcasts' });
}

describe('PodcastSearch', () => {
  it('debounces typing into one search and marks shows already in the library as Added', async () => {
    const fetchMock = mockFetch((url) => {
      if (url === LIBRARY_URL) return jsonResponse([owned]);
      if (url.startsWith('/api/podcasts/search')) return jsonResponse([radiolab, radioHeadspace]);
      return jsonResponse({}, { status: 404 });
    });
    renderWithProviders(<PodcastSearch userId={7} />);
    for (const text of ['r', 'ra', 'rad', 'radi']) fireEvent.change(searchBox(), { target: { value: text } });

    const results = await screen.findByRole('list', { name: 'Search results' });
    expect(searchCalls(fetchMock)).toEqual(['/api/podcasts/search?q=radi&limit=20']);
    const rows = within(results).getAllByTestId('search-result');
    expect(rows).toHaveLength(2);
    within(rows[0] as HTMLElement).getByText('WNYC Studios');
    expect(
      within(rows[0] as HTMLElement)
        .getByRole('button', { name: 'Add Radiolab' })
        .hasAttribute('disabled'),
    ).toBe(false);
    const added = within(rows[1] as HTMLElement).getByRole('button', {
      name: 'Added, Radio Headspace is in your library',
    });
    expect(added.hasAttribute('disabled')).toBe(true);
    expect(added.textContent).toBe('Added');
  });

  it('adds a result with POST {podcastId}; Enter on the focused result works, then it shows Added', async () => {
    const library = [owned];
    const fetchMock = mockFetch((url, init) => {
      if (url === LIBRARY_URL && init.method === 'POST') {
        const entry = makeEntry({ id: 10, podcast: radiolab });
        library.push(entry);
        return jsonResponse(entry, { status: 201 });
      }
      if (url === LIBRARY_URL) return jsonResponse(library);
      if (url.startsWith('/api/podcasts/search')) return jsonResponse([radiolab]);
      return jsonResponse({}, { status: 404 });
    });
    renderWithProviders(<PodcastSearch userId={7} />);
    fireEvent.change(searchBox(), { target: { value: 'radiolab' } });
    await screen.findByRole('button', { name: 'Add Radiolab' });

    // Keyboard: ArrowDown from the input focuses the first result; Enter activates it.
    fireEvent.keyDown(searchBox(), { key: 'ArrowDown' });
    const addButton = screen.getByRole('button', { name: 'Add Radiolab' });
    expect(document.activeElement).toBe(addButton);
    fireEvent.keyDown(addButton, { key: 'Enter' });
    // happy-dom does not turn Enter into a click on a button; the browser does.
    fireEvent.click(addButton);

    await screen.findByRole('button', { name: 'Added, Radiolab is in your library' });
    const post = fetchMock.mock.calls.find(([url, init]) => url === LIBRARY_URL && init?.method === 'POST');
    expect(post?.[1]?.body).toBe('{"podcastId":201}');
    await screen.findByText('Podcast added');
  });

  it('says so when nothing matches, and shows search errors', async () => {
    mockFetch((url) => {
      if (url === LIBRARY_URL) return jsonResponse([]);
      if (url.includes('q=zzz')) return jsonResponse([]);
      if (url.startsWith('/api/podcasts/search')) {
        return jsonResponse({ error: 'bad_request', message: 'Search text is too long' }, { status: 400 });
      }
      return jsonResponse({}, { status: 404 });
    });
    renderWithProviders(<PodcastSearch userId={7} />);
    fireEvent.change(searchBox(), { target: { value: 'zzz' } });
    await screen.findByText(/No podcasts match “zzz”/);

    fireEvent.change(searchBox(), { target: { value: 'boom' } });
    expect((await screen.findByRole('alert')).textContent).toBe('Search failed: Search text is too long');
  });

  it('does not search for blank text', async () => {
    const fetchMock = mockFetch(() => jsonResponse([]));
    renderWithProviders(<PodcastSearch userId={7} />);
    fireEvent.change(searchBox(), { target: { value: '   ' } });
    // A real search afterwards is the sentinel: once it went out, a blank one would have gone before it.
    fireEvent.change(searchBox(), { target: { value: 'serial' } });
    await waitFor(() => expect(searchCalls(fetchMock)).toHaveLength(1));
    expect(searchCalls(fetchMock)[0]).toContain('q=serial');
  });
});
