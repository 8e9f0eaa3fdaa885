import { LIMITS } from '@shared/constants';
import type { Message } from '@shared/schemas/chat';
import { describe, expect, it } from 'vitest';
import { createQueryClient } from '@/lib/query-client';
import { makeMessage, makeMessages } from '@/test/fixtures';
import { jsonResponse, mockFetch } from '@/test/utils';
import {
  type Conversation,
  catchUp,
  contiguousEnd,
  conversationKey,
  conversationQuery,
  getConversation,
  isConversationRemoved,
  loadOlder,
  mergeMessages,
  receiveMessage,
} from './conversation-cache';

const ME = 7;
const MATCH = 3;
const LIST = `/api/users/${ME}/matches/${MATCH}/messages`;

const empty: Conversation = { messages: [], pending: [], hasOlder: false };
const seqs = (c: Conversation | undefined) => c?.messages.map((m) => m.seq);

function seed(messages: Message[], extra: Partial<Conversation> = {}) {
  const queryClient = createQueryClient();
  queryClient.setQueryData<Conversation>(conversationKey(MATCH), { ...empty, messages, ...extra });
  return queryClient;
}

/** Serves GET .../messages?after= from `all` (oldest first, at most `limit`). */
function serveAfter(all: Message[]) {
  return mockFetch((url) => {
    const { pathname, searchParams } = new URL(url, 'http://x');
    if (pathname !== LIST) return jsonResponse({ error: 'not_found', message: 'no' }, { status: 404 });
    const after = Number(searchParams.get('after'));
    const limit = Number(searchParams.get('limit'));
    return jsonResponse(all.filter((m) => m.seq > after).slice(0, limit));
  });
}

describe('mergeMessages', () => {
  it('keeps each seq once, in seq order', () => {
    const [one, two, three] = makeMessages(1, 3);
    const merged = mergeMessages({ ...empty, messages: [one!, three!] }, [two!, three!, { ...one!, id: 999 }]);
    expect(seqs(merged)).toEqual([1, 2, 3]);
    expect(merged.messages[0]).toBe(one);
  });

  it('a stored message replaces the pending one with its clientId', () => {
    const clientId = crypto.randomUUID();
    const pending = { clientId, content: 'hi', createdAt: new Date().toISOString() };
    const other = { clientId: crypto.randomUUID(), content: 'later', createdAt: pending.createdAt };
    const stored = makeMessage({ seq: 4, senderId: ME, clientId, content: 'hi' });
    const merged = mergeMessages({ ...empty, pending: [pending, other] }, [stored]);
    expect(merged.pending).toEqual([other]);
    expect(merged.messages).toEqual([stored]);
  });

  it('returns the same object when nothing changes', () => {
    const conversation = { ...empty, messages: makeMessages(1, 2) };
    expect(mergeMessages(conversation, [])).toBe(conversation);
    expect(mergeMessages(conversation, [conversation.messages[1]!])).toBe(conversation);
  });
});

describe('contiguousEnd', () => {
  it('is the last seq without a gap from the oldest loaded', () => {
    expect(contiguousEnd([])).toBe(0);
    expect(contiguousEnd(makeMessages(51, 100))).toBe(100);
    expect(contiguousEnd([...makeMessages(1, 10), makeMessage({ seq: 13 })])).toBe(10);
  });
});

describe('catchUp', () => {
  it('fetches after the last seq, page after page while full pages come back', async () => {
    const all = makeMessages(1, LIMITS.messagePageMax + 7);
    const fetchMock = serveAfter(all);
    const queryClient = seed(all.slice(0, 3));
    await catchUp(queryClient, ME, MATCH);
    expect(seqs(getConversation(queryClient, MATCH))).toEqual(all.map((m) => m.seq));
    expect(fetchMock.mock.calls.map(([url]) => url)).toEqual([
      `${LIST}?after=3&limit=${LIMITS.messagePageMax}`,
      `${LIST}?after=${LIMITS.messagePageMax + 3}&limit=${LIMITS.messagePageMax}`,
    ]);
  });

  it('fills a gap left by a message that arrived before the ones before it', async () => {
    const all = makeMessages(1, 6);
    const fetchMock = serveAfter(all);
    const queryClient = seed([...all.slice(0, 3), all[5]!]);
    await catchUp(queryClient, ME, MATCH);
    expect(seqs(getConversation(queryClient, MATCH))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(fetchMock).toHaveBeenCalledOnce();
    expect(fetchMock.mock.calls[0]?.[0]).toContain('after=3');
  });

  it('runs once at a time per match, and not at all for a conversation never loaded', async () => {
    const fetchMock = serveAfter(makeMessages(1, 2));
    const queryClient = seed(makeMessages(1, 1));
    await Promise.all([catchUp(queryClient, ME, MATCH), catchUp(queryClient, ME, MATCH)]);
    expect(fetchMock).toHaveBeenCalledOnce();
    await catchUp(createQueryClient(), ME, MATCH);
    expect(fetchMock).toHaveBeenCalledOnce();
  });

  it('a match the server no longer shows (404) is forgotten and remembered as removed', async () => {
    mockFetch(() => jsonResponse({ error: 'not_found', message: 'Match not found' }, { status: 404 }));
    const queryClient = seed(makeMessages(1, 2));
    await expect(catchUp(queryClient, ME, MATCH)).rejects.toMatchObject({ status: 404 });
    expect(getConversation(queryClient, MATCH)).toBeUndefined();
    expect(isConversationRemoved(queryClient, MATCH)).toBe(true);
  });
});

describe('loading pages', () => {
  it('the newest page knows whether older messages exist; scrolling up loads them before the oldest', async () => {
    const all = makeMessages(1, LIMITS.messagePageSize + 5);
    const fetchMock = mockFetch((url) => {
      const { searchParams } = new URL(url, 'http://x');
      const before = searchParams.get('before');
      const limit = Number(searchParams.get('limit'));
      const page = before ? all.filter((m) => m.seq < Number(before)) : all;
      return jsonResponse(page.slice(-limit));
    });
    const queryClient = createQueryClient();
    await queryClient.fetchQuery(conversationQuery(ME, MATCH));
    expect(getConversation(queryClient, MATCH)?.hasOlder).toBe(true);
    expect(seqs(getConversation(queryClient, MATCH))?.[0]).toBe(6);

    await loadOlder(queryClient, ME, MATCH);
    expect(fetchMock.mock.calls.at(-1)?.[0]).toBe(`${LIST}?before=6&limit=${LIMITS.messagePageSize}`);
    expect(seqs(getConversation(queryClient, MATCH))).toEqual(all.map((m) => m.seq));
    expect(getConversation(queryClient, MATCH)?.hasOlder).toBe(false);
  });

  it("a 'message:new' while the first page is on its way is added once the page is in", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The page was read before message 3 was stored.
    mockFetch(() => gate.then(() => jsonResponse(makeMessages(1, 2))));
    const queryClient = createQueryClient();
    const loading = queryClient.fetchQuery(conversationQuery(ME, MATCH));
    receiveMessage(queryClient, ME, makeMessage({ seq: 3 }));
    release();
    await loading;
    await expect.poll(() => seqs(getConversation(queryClient, MATCH))).toEqual([1, 2, 3]);

    // A conversation nobody opened is left alone.
    receiveMessage(queryClient, ME, makeMessage({ matchId: 99, seq: 1 }));
    expect(getConversation(queryClient, 99)).toBeUndefined();
  });
});
