import { CHAT_TEXTS, ICEBREAKER_TEMPLATES, LIMITS, TIMING } from '@shared/constants';
import { act, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppProviders } from '@/app/providers';
import { createQueryClient } from '@/lib/query-client';
import { type ChatServerState, serveChat, storeMessage } from '@/test/chat-server';
import { makeMatchView, makeMessage, makeMessages } from '@/test/fixtures';
import { jsonResponse } from '@/test/utils';
import { ChatScreen } from './chat-screen';
import { loadNudgeCheck } from './nudge-check';

const fake = await vi.hoisted(async () => (await import('@/test/fake-socket')).createFakeSocket());
vi.mock('socket.io-client', () => ({ io: (options: unknown) => fake.io(options) }));

const ME = 7;
const OTHER = 9;
const LIST = `/api/users/${ME}/matches/3/messages`;
const secondsAgo = (n: number) => new Date(Date.now() - n * 1000).toISOString();

function renderChat(state: ChatServerState, extra?: Parameters<typeof serveChat>[1]) {
  const server = serveChat(state, extra);
  const queryClient = createQueryClient();
  const router = createMemoryRouter(
    [
      { path: '/chat/:matchId', element: <ChatScreen userId={ME} matchId={3} /> },
      { path: '/matches', element: <p>matches page</p> },
    ],
    { initialEntries: ['/chat/3'] },
  );
  render(
    <AppProviders queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { ...server, queryClient, router };
}

const input = () => screen.getByPlaceholderText(CHAT_TEXTS.placeholder) as HTMLTextAreaElement;
const bubbles = () => screen.queryAllByTestId('message');
const texts = () => bubbles().map((b) => b.querySelector('p')?.textContent);
async function typeAndSend(text: string) {
  fireEvent.change(input(), { target: { value: text } });
  await act(async () => fireEvent.keyDown(input(), { key: 'Enter' }));
}

describe('ChatScreen', () => {
  // The word check loads in a chunk of its own (nudge-check.ts): loaded first, every send is decided at once.
  beforeAll(async () => {
    await loadNudgeCheck();
  });

  beforeEach(() => fake.reset());

  it('shows the header, the messages oldest first with own ones on the right, times, receipts and the footer', async () => {
    const state: ChatServerState = {
      me: ME,
      match: makeMatchView({ sharedPodcastCount: 12, otherReadSeq: 2 }),
      messages: [
        makeMessage({ seq: 3, senderId: ME, content: 'Not read yet', createdAt: secondsAgo(20) }),
        makeMessage({ seq: 1, senderId: OTHER, content: 'Hi! Radiolab fan?', createdAt: secondsAgo(200 * 60) }),
        makeMessage({ seq: 2, senderId: ME, content: 'Huge fan.\nYou?', createdAt: secondsAgo(5 * 60) }),
      ],
    };
    renderChat(state);
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toBe('Sam Rivers');
    expect(screen.getByText('87% match')).toBeTruthy();
    expect(screen.getByRole('link', { name: 'Back to Matches' }).getAttribute('href')).toBe('/matches');

    await waitFor(() => expect(texts()).toEqual(['Hi! Radiolab fan?', 'Huge fan.\nYou?', 'Not read yet']));
    expect(bubbles().map((b) => b.dataset.own)).toEqual(['false', 'true', 'true']);
    expect(bubbles().map((b) => b.querySelector('time')?.textContent)).toEqual(['3hr ago', '5m ago', 'just now']);
    // 'Read' under own messages the other person has read (seq <= otherReadSeq).
    expect(bubbles().map((b) => within(b).queryByText('Read') !== null)).toEqual([false, true, false]);
    expect(screen.getByTestId('shared-podcasts').textContent).toBe('12 shared podcasts');
    // Own header, no bottom navigation.
    expect(screen.queryByTestId('nav-matches')).toBeNull();
  });

  it("says '1 shared podcast' for one", async () => {
    renderChat({ me: ME, match: makeMatchView({ sharedPodcastCount: 1 }), messages: [] });
    expect((await screen.findByTestId('shared-podcasts')).textContent).toBe('1 shared podcast');
  });

  it('the empty state offers an icebreaker that names a podcast the two share', async () => {
    const sharedPodcasts = ['Radiolab', 'Serial', 'The Daily', 'Reply All'].map((name, i) => ({
      id: i + 1,
      name,
      creator: null,
      imageUrl: null,
    }));
    renderChat({ me: ME, match: makeMatchView({ sharedPodcasts, sharedPodcastCount: 4 }), messages: [] });
    const empty = await screen.findByTestId('chat-empty');
    expect(within(empty).getByRole('heading').textContent).toBe('Start a conversation');
    expect(empty.textContent).toContain('both enjoy podcasts');
    fireEvent.click(within(empty).getByRole('button', { name: 'Generate Icebreaker' }));
    const text = input().value;
    const named = ['Radiolab', 'Serial', 'The Daily'].filter((name) =>
      ICEBREAKER_TEMPLATES.some((t) => t.replace('{podcast}', name) === text),
    );
    expect(named, text).toHaveLength(1);
    expect(document.activeElement).toBe(input());
  });

  it('without shared podcasts the icebreaker is the generic opener', async () => {
    renderChat({ me: ME, match: makeMatchView(), messages: [] });
    fireEvent.click(await screen.findByRole('button', { name: 'Generate Icebreaker' }));
    expect(input().value).toBe(CHAT_TEXTS.noSharedOpener);
  });

  it('without a socket it posts the message with a clientId and shows the stored one once', async () => {
    const state: ChatServerState = { me: ME, match: makeMatchView(), messages: makeMessages(1, 1) };
    const { calls } = renderChat(state);
    await screen.findByText('Message 1');
    await typeAndSend('Hello from the test');
    await waitFor(() => expect(calls('POST', '/api/chat')).toHaveLength(1));
    const body = calls('POST', '/api/chat')[0]?.body;
    expect(body).toEqual({ matchId: 3, senderId: ME, content: 'Hello from the test', clientId: expect.any(String) });
    expect(body.clientId).toMatch(/^[0-9a-f-]{36}$/);
    await waitFor(() => expect(bubbles().at(-1)?.dataset.pending).toBe('false'));
    expect(texts()).toEqual(['Message 1', 'Hello from the test']);
    expect(bubbles().at(-1)?.dataset.seq).toBe('2');
  });

  it("a flagged message of the other person's says 'Does this bother you?' with a Report that opens the report, harassment chosen", async () => {
    const state: ChatServerState = {
      me: ME,
      match: makeMatchView(),
      messages: [
        makeMessage({ seq: 1, senderId: OTHER, content: 'kys', flagged: true }),
        makeMessage({ seq: 2, senderId: OTHER, content: 'Radiolab tonight?' }),
        makeMessage({ seq: 3, senderId: ME, content: 'shut up, retard', flagged: true }),
      ],
    };
    const { calls } = renderChat(state, (url, init) =>
      url === '/api/reports' && init.method === 'POST' ? jsonResponse({ ok: true }, { status: 201 }) : undefined,
    );
    await waitFor(() => expect(texts()).toEqual(['kys', 'Radiolab tonight?', 'shut up, retard']));
    // Only under the other person's flagged message: not under a normal one, never under one's own.
    expect(bubbles().map((b) => within(b).queryByText('Does this bother you?') !== null)).toEqual([true, false, false]);
    expect(screen.getAllByRole('button', { name: /^Report/ })).toHaveLength(1);

    fireEvent.click(within(bubbles()[0] as HTMLElement).getByRole('button', { name: 'Report Sam Rivers' }));
    const dialog = screen.getByRole('dialog', { name: 'Report Sam Rivers' });
    expect((within(dialog).getByRole('radio', { name: 'Harassment' }) as HTMLInputElement).checked).toBe(true);
    fireEvent.change(within(dialog).getByRole('textbox', { name: 'Details (optional)' }), {
      target: { value: 'Told me to kill myself' },
    });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Send report' }));
    await waitFor(() => expect(calls('POST', '/api/reports')).toHaveLength(1));
    expect(calls('POST', '/api/reports')[0]?.body).toEqual({
      reportedId: OTHER,
      matchId: 3,
      reason: 'harassment',
      details: 'Told me to kill myself',
    });
    expect(await screen.findByText('Report sent')).toBeTruthy();
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it("sending a flagged text asks 'Are you sure?'; Send anyway posts it, and the sender sees no report line", async () => {
    const state: ChatServerState = { me: ME, match: makeMatchView(), messages: makeMessages(1, 1) };
    const { calls } = renderChat(state);
    await screen.findByText('Message 1');
    await typeAndSend('what a b1tch');
    expect(screen.getByRole('alertdialog', { name: 'Are you sure?' })).toBeTruthy();
    expect(calls('POST', '/api/chat')).toHaveLength(0);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Send anyway' })));
    await waitFor(() => expect(calls('POST', '/api/chat')).toHaveLength(1));
    expect(calls('POST', '/api/chat')[0]?.body).toMatchObject({ content: 'what a b1tch' });
    await waitFor(() => expect(bubbles().at(-1)?.dataset.pending).toBe('false'));
    expect(state.messages.at(-1)?.flagged).toBe(true);
    expect(screen.queryByText('Does this bother you?')).toBeNull();
  });

  it('a failed send shows the SPEC error, takes the bubble back and keeps the text', async () => {
    const state: ChatServerState = {
      me: ME,
      match: makeMatchView(),
      messages: [],
      sendAnswer: () => jsonResponse({ error: 'internal', message: 'boom' }, { status: 500 }),
    };
    renderChat(state);
    await screen.findByTestId('chat-empty');
    await typeAndSend('Please arrive');
    expect((await screen.findByTestId('send-error')).textContent).toBe('Failed to send message. Please try again.');
    expect(input().value).toBe('Please arrive');
    expect(bubbles()).toHaveLength(0);
  });

  it('a 429 says the person is sending too fast', async () => {
    const state: ChatServerState = {
      me: ME,
      match: makeMatchView(),
      messages: [],
      sendAnswer: () => jsonResponse({ error: 'rate_limited', message: 'Too many' }, { status: 429 }),
    };
    renderChat(state);
    await screen.findByTestId('chat-empty');
    await typeAndSend('One more');
    expect((await screen.findByTestId('send-error')).textContent).toBe(CHAT_TEXTS.rateLimited);
    expect(input().value).toBe('One more');
  });

  it('over the socket: pending at once, the send button disabled until the acknowledgement', async () => {
    fake.socket.connected = true;
    const state: ChatServerState = { me: ME, match: makeMatchView(), messages: makeMessages(1, 1) };
    let acknowledge: () => void = () => {};
    fake.answers.set('message:send', (payload) => {
      const { content, clientId } = payload as { content: string; clientId: string };
      return new Promise((resolve) => {
        acknowledge = () => resolve({ ok: true, data: storeMessage(state, { senderId: ME, content, clientId }) });
      });
    });
    const { calls } = renderChat(state);
    await screen.findByText('Message 1');
    await typeAndSend('Over the socket');
    await waitFor(() => expect(bubbles().at(-1)?.dataset.pending).toBe('true'));
    expect(within(bubbles().at(-1) as HTMLElement).getByText('Sending…')).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Send message' }) as HTMLButtonElement).disabled).toBe(true);

    await act(async () => acknowledge());
    await waitFor(() => expect(bubbles().at(-1)?.dataset.pending).toBe('false'));
    expect(texts()).toEqual(['Message 1', 'Over the socket']);
    expect(calls('POST', '/api/chat')).toHaveLength(0);
    // Typing was announced, and its end with the send.
    expect(fake.sentOf('typing')).toEqual([
      { matchId: 3, typing: true },
      { matchId: 3, typing: false },
    ]);
  });

  it('scrolling up loads the page before the oldest message', async () => {
    const all = makeMessages(1, LIMITS.messagePageSize + 10);
    const { messageRequests } = renderChat({ me: ME, match: makeMatchView(), messages: all });
    await waitFor(() => expect(bubbles()).toHaveLength(LIMITS.messagePageSize));
    const scroller = screen.getByTestId('message-scroller');
    scroller.scrollTop = 0;
    await act(async () => fireEvent.scroll(scroller));
    await waitFor(() => expect(bubbles()).toHaveLength(all.length));
    expect(messageRequests()).toContain(`${LIST}?before=11&limit=${LIMITS.messagePageSize}`);
    expect(bubbles()[0]?.dataset.seq).toBe('1');
    expect(screen.queryByRole('button', { name: 'Load earlier messages' })).toBeNull();
  });

  it('marks the newest message read when the chat is visible and focused', async () => {
    fake.socket.connected = true;
    const hasFocus = vi.spyOn(document, 'hasFocus').mockReturnValue(false);
    renderChat({ me: ME, match: makeMatchView({ hasUnreadMessages: true }), messages: makeMessages(1, 4) });
    await screen.findByText('Message 4');
    expect(fake.sentOf('message:read')).toEqual([]);
    hasFocus.mockReturnValue(true);
    await act(async () => window.dispatchEvent(new Event('focus')));
    expect(fake.sentOf('message:read')).toEqual([{ matchId: 3, seq: 4 }]);
  });

  it('asks whether the other person is online', async () => {
    fake.socket.connected = true;
    fake.answers.set('presence:get', () => ({ ok: true, data: { online: true } }));
    renderChat({ me: ME, match: makeMatchView(), messages: [] });
    expect((await screen.findByTestId('presence')).textContent).toBe('Online');
    expect(fake.sentOf('presence:get')).toEqual([{ matchId: 3 }]);
  });

  it("a match the server does not show (404) is 'Conversation not found' with a way back", async () => {
    const { router } = renderChat({ me: ME, match: null, messages: [] });
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toBe(CHAT_TEXTS.notFoundTitle);
    expect(screen.getByText(CHAT_TEXTS.notFoundBody)).toBeTruthy();
    fireEvent.click(screen.getByRole('link', { name: 'Back to Matches' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/matches'));
  });
});

describe('ChatScreen polling fallback', () => {
  beforeEach(() => fake.reset());

  it(`polls 'after' every ${TIMING.messagePollMs} ms while the socket is down, and stops once it is back`, async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const state: ChatServerState = { me: ME, match: makeMatchView(), messages: makeMessages(1, 2) };
    const { messageRequests } = renderChat(state);
    await screen.findByText('Message 2');
    const polls = () => messageRequests().filter((url) => url.includes('after='));
    // Disconnected from the start: the first poll comes at once.
    await waitFor(() => expect(polls()).toEqual([`${LIST}?after=2&limit=${LIMITS.messagePageMax}`]));

    storeMessage(state, { senderId: OTHER, content: 'Sent while you were offline' });
    await act(() => vi.advanceTimersByTimeAsync(TIMING.messagePollMs));
    await screen.findByText('Sent while you were offline');
    expect(polls()).toHaveLength(2);
    expect(polls()[1]).toContain('after=2');

    act(() => fake.setConnected(true));
    await act(() => vi.advanceTimersByTimeAsync(TIMING.messagePollMs * 3));
    expect(polls()).toHaveLength(2);

    act(() => fake.setConnected(false));
    await act(() => vi.advanceTimersByTimeAsync(TIMING.messagePollMs));
    await waitFor(() => expect(polls()).toHaveLength(3));
    expect(polls()[2]).toContain('after=3');
  });
});
