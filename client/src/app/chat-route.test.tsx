import { CHAT_TEXTS } from '@shared/constants';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { formatDateTime } from '@/components/statement-of-reasons';
import { SUSPENDED_CHAT_TEXTS } from '@/features/chat/chat-not-found';
import { conversationKey } from '@/features/chat/conversation-cache';
import { sessionAtom, writeStoredSession } from '@/lib/session';
import { appStore } from '@/lib/store';
import { type ChatServerState, serveChat, storeMessage } from '@/test/chat-server';
import { makeMatchView, makeMessage, makeMessages } from '@/test/fixtures';
import { makeNotice } from '@/test/moderation-fixtures';
import { jsonResponse, renderApp } from '@/test/utils';

// The whole app (route, session services, realtime bridge) with a fake socket the test plays.
const fake = await vi.hoisted(async () => (await import('@/test/fake-socket')).createFakeSocket());
vi.mock('socket.io-client', () => ({ io: (options: unknown) => fake.io(options) }));

const ME = 7;
const OTHER = 9;

function openChat(state: ChatServerState, path = '/chat/3', extra?: Parameters<typeof serveChat>[1]) {
  writeStoredSession({ token: 'tok-7', userId: ME });
  const server = serveChat(state, extra);
  return { ...server, ...renderApp(path) };
}

/** The realtime bridge is subscribed (it mounts once the session is validated). */
const bridgeReady = () => waitFor(() => expect(fake.listeners.get('message:new')?.size ?? 0).toBeGreaterThan(0));
const bubbles = () => screen.queryAllByTestId('message');
const texts = () => bubbles().map((b) => b.querySelector('p')?.textContent);

describe('/chat/:matchId', () => {
  beforeEach(() => fake.reset());

  it("a match id that is not a number is 'Conversation not found' without asking the server", async () => {
    const { calls } = openChat({ me: ME, match: makeMatchView(), messages: [] }, '/chat/abc');
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toBe(CHAT_TEXTS.notFoundTitle);
    expect(screen.getByRole('link', { name: CHAT_TEXTS.backToMatches }).getAttribute('href')).toBe('/matches');
    expect(calls('GET', '/api/matches/abc')).toHaveLength(0);
  });

  it('says so when the other person deleted their account while the chat was open', async () => {
    const state: ChatServerState = { me: ME, match: makeMatchView(), messages: makeMessages(1, 2) };
    openChat(state);
    await screen.findByText('Message 2');
    await bridgeReady();

    act(() => fake.emit('match:removed', { matchId: 3, intent: 'romantic', reason: 'accountDeleted' }));
    expect(await screen.findByText(CHAT_TEXTS.accountDeletedTitle)).toBeTruthy();
    expect(screen.getByText(CHAT_TEXTS.accountDeletedBody)).toBeTruthy();
    expect(screen.queryByText(CHAT_TEXTS.notFoundTitle)).toBeNull();
    expect(screen.getByRole('link', { name: CHAT_TEXTS.backToMatches })).toBeTruthy();
  });

  it('the other person was suspended: the chat ends and says so, without saying why', async () => {
    const state: ChatServerState = { me: ME, match: makeMatchView(), messages: makeMessages(1, 2) };
    openChat(state);
    await screen.findByText('Message 2');
    await bridgeReady();

    act(() => fake.emit('match:removed', { matchId: 3, intent: 'romantic', reason: 'suspended' }));
    await screen.findByRole('heading', { level: 1, name: SUSPENDED_CHAT_TEXTS.title });
    screen.getByText(SUSPENDED_CHAT_TEXTS.body);
    expect(screen.queryByText(CHAT_TEXTS.notFoundTitle)).toBeNull();
    expect(screen.queryByText('Message 2')).toBeNull();
    expect(screen.getByRole('link', { name: CHAT_TEXTS.backToMatches })).toBeTruthy();
  });

  it('a moderator suspends the person in the chat: it ends, and the login screen shows the statement with an appeal', async () => {
    const state: ChatServerState = { me: ME, match: makeMatchView(), messages: makeMessages(1, 2) };
    const until = '2026-12-04T10:00:00.000Z';
    const notice = makeNotice({ action: { endsAt: until } });
    // The appeal a suspended person sends without a session.
    const { router, calls } = openChat(state, '/chat/3', (url, init) =>
      url === '/api/appeals' && init.method === 'POST' ? jsonResponse({ ok: true }, { status: 201 }) : undefined,
    );
    await screen.findByText('Message 2');
    await bridgeReady();

    act(() => fake.emit('moderation:notice', { notice, appealToken: 'live-token-0123456789abcdef' }));
    act(() => fake.emit('session:ended', 'suspended'));

    const statement = await screen.findByRole('region', {
      name: `Your account is suspended until ${formatDateTime(until)}`,
    });
    expect(router.state.location.pathname).toBe('/login');
    expect(appStore.get(sessionAtom)).toBeNull();
    expect(screen.queryByText('Message 2')).toBeNull();
    within(statement).getByText('You sent threatening messages to another person.');
    fireEvent.click(within(statement).getByRole('button', { name: 'Appeal' }));
    fireEvent.change(within(statement).getByLabelText('Why should we look at it again?'), {
      target: { value: 'It was a misunderstanding between us.' },
    });
    fireEvent.click(within(statement).getByRole('button', { name: 'Send appeal' }));
    await within(statement).findByText(/Your appeal was sent/);
    expect(calls('POST', '/api/appeals').map((c) => c.body)).toEqual([
      { token: 'live-token-0123456789abcdef', text: 'It was a misunderstanding between us.' },
    ]);
  });

  it('turns into not found when the match ends while open, and a late message does not bring it back', async () => {
    const state: ChatServerState = { me: ME, match: makeMatchView(), messages: makeMessages(1, 2) };
    const { queryClient } = openChat(state);
    await screen.findByText('Message 2');
    await bridgeReady();

    act(() => fake.emit('match:removed', { matchId: 3, intent: 'romantic' }));
    expect(await screen.findByText(CHAT_TEXTS.notFoundTitle)).toBeTruthy();
    expect(screen.getByText(CHAT_TEXTS.notFoundBody)).toBeTruthy();

    act(() => fake.emit('message:new', makeMessage({ seq: 3, content: 'Too late' })));
    expect(queryClient.getQueryData(conversationKey(3))).toBeUndefined();
    expect(screen.queryByText('Too late')).toBeNull();
    expect(screen.getByText(CHAT_TEXTS.notFoundTitle)).toBeTruthy();
  });

  it("shows the other person's new message live, once, and their typing until it arrives", async () => {
    const state: ChatServerState = { me: ME, match: makeMatchView(), messages: makeMessages(1, 1) };
    openChat(state);
    await screen.findByText('Message 1');
    await bridgeReady();

    act(() => fake.emit('typing', { matchId: 3, userId: OTHER, typing: true }));
    expect((await screen.findByTestId('typing-indicator')).textContent).toBe('Sam Rivers is typing…');

    const message = storeMessage(state, { senderId: OTHER, content: 'Live!' });
    act(() => fake.emit('message:new', message));
    act(() => fake.emit('message:new', message));
    await screen.findByText('Live!');
    expect(texts()).toEqual(['Message 1', 'Live!']);
    await waitFor(() => expect(screen.queryByTestId('typing-indicator')).toBeNull());
  });

  it("an own message is pending, then stored, and shown once although 'message:new' beats the acknowledgement", async () => {
    fake.socket.connected = true;
    const state: ChatServerState = { me: ME, match: makeMatchView(), messages: makeMessages(1, 1) };
    let stored: ReturnType<typeof storeMessage> | undefined;
    let acknowledge: () => void = () => {};
    fake.answers.set('message:send', (payload) => {
      const { content, clientId } = payload as { content: string; clientId: string };
      stored = storeMessage(state, { senderId: ME, content, clientId });
      return new Promise((resolve) => {
        acknowledge = () => resolve({ ok: true, data: stored });
      });
    });
    openChat(state);
    await screen.findByText('Message 1');
    await bridgeReady();

    const input = screen.getByPlaceholderText(CHAT_TEXTS.placeholder);
    fireEvent.change(input, { target: { value: 'Mine' } });
    await act(async () => fireEvent.keyDown(input, { key: 'Enter' }));
    await waitFor(() => expect(bubbles().at(-1)?.dataset.pending).toBe('true'));

    // The server's broadcast reaches this tab before the acknowledgement.
    act(() => fake.emit('message:new', stored));
    await waitFor(() => expect(bubbles().at(-1)?.dataset.pending).toBe('false'));
    expect(texts()).toEqual(['Message 1', 'Mine']);

    await act(async () => acknowledge());
    // The send settled: the composer takes the next message.
    fireEvent.change(input, { target: { value: 'Next' } });
    await waitFor(() =>
      expect((screen.getByRole('button', { name: 'Send message' }) as HTMLButtonElement).disabled).toBe(false),
    );
    expect(texts()).toEqual(['Message 1', 'Mine']);
    expect(bubbles()).toHaveLength(2);
  });

  it("'Read' appears under own messages when the other person reads them; presence follows events", async () => {
    fake.socket.connected = true;
    fake.answers.set('presence:get', () => ({ ok: true, data: { online: false } }));
    const state: ChatServerState = {
      me: ME,
      match: makeMatchView(),
      messages: [
        makeMessage({ seq: 1, senderId: ME, content: 'First' }),
        makeMessage({ seq: 2, senderId: ME, content: 'Second' }),
      ],
    };
    openChat(state);
    await screen.findByText('Second');
    await bridgeReady();
    expect(screen.queryAllByText('Read')).toHaveLength(0);
    expect((await screen.findByTestId('presence')).textContent).toBe('Offline');

    act(() => fake.emit('message:read', { matchId: 3, userId: OTHER, seq: 1 }));
    await waitFor(() => expect(within(bubbles()[0] as HTMLElement).queryByText('Read')).not.toBeNull());
    expect(within(bubbles()[1] as HTMLElement).queryByText('Read')).toBeNull();

    act(() => fake.emit('presence', { userId: OTHER, online: true }));
    await waitFor(() => expect(screen.getByTestId('presence').textContent).toBe('Online'));
  });
});
