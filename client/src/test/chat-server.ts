import { isMessageFlagged } from '@shared/moderation/message-nudge';
import type { Message } from '@shared/schemas/chat';
import type { MatchView } from '@shared/schemas/matches';
import { makeMessage, makeSelfUser } from './fixtures';
import { type FetchHandler, jsonResponse, mockFetch } from './utils';

export interface ChatServerState {
  me: number;
  /** The match as the signed-in user sees it; null = 404 (not theirs, ended, or never existed). */
  match: MatchView | null;
  messages: Message[];
  /** Answer for POST /api/messages instead of storing (e.g. a 429). */
  sendAnswer?: () => Response;
}

const notFound = () => jsonResponse({ error: 'not_found', message: 'Match not found' }, { status: 404 });

/**
 * A fake REST backend for chat tests: the signed-in user, GET /api/matches/:id, the message pages
 * (newest, before, after), POST /api/messages (idempotent by clientId, flagged as the server would)
 * and POST .../read.
 * `extra` may answer a request first.
 */
export function serveChat(state: ChatServerState, extra?: (url: string, init: RequestInit) => Response | undefined) {
  const handler: FetchHandler = async (url, init) => {
    const answer = extra?.(url, init);
    if (answer) return answer;
    const method = init.method ?? 'GET';
    const { pathname, searchParams } = new URL(url, 'http://localhost');
    const match = state.match;
    if (pathname === `/api/users/${state.me}` && method === 'GET') return jsonResponse(makeSelfUser({ id: state.me }));
    if (!match) return notFound();
    if (pathname === `/api/matches/${match.id}` && method === 'GET') return jsonResponse(match);
    if (pathname === `/api/users/${state.me}/matches/${match.id}/messages` && method === 'GET') {
      const limit = Number(searchParams.get('limit') ?? 50);
      const before = searchParams.get('before');
      const after = searchParams.get('after');
      const sorted = [...state.messages].sort((a, b) => a.seq - b.seq);
      if (after !== null) return jsonResponse(sorted.filter((m) => m.seq > Number(after)).slice(0, limit));
      const older = before === null ? sorted : sorted.filter((m) => m.seq < Number(before));
      return jsonResponse(older.slice(-limit));
    }
    if (pathname === '/api/chat' && method === 'POST') {
      if (state.sendAnswer) return state.sendAnswer();
      const body = JSON.parse(String(init.body)) as { content: string; clientId?: string };
      const existing = state.messages.find((m) => m.clientId === body.clientId && m.senderId === state.me);
      if (existing) return jsonResponse(existing, { status: 201 });
      const stored = storeMessage(state, {
        senderId: state.me,
        content: body.content,
        clientId: body.clientId ?? null,
        flagged: isMessageFlagged(body.content),
      });
      return jsonResponse(stored, { status: 201 });
    }
    if (pathname === `/api/matches/${match.id}/read` && method === 'POST') {
      const { seq } = JSON.parse(String(init.body)) as { seq: number };
      state.match = { ...match, readSeq: Math.max(match.readSeq, seq), hasUnreadMessages: false };
      return jsonResponse(state.match);
    }
    return notFound();
  };
  const fetchMock = mockFetch(handler);
  const calls = (method: string, path: string) =>
    fetchMock.mock.calls
      .filter(([url, init]) => (init?.method ?? 'GET') === method && String(url).split('?')[0] === path)
      .map(([url, init]) => ({ url: String(url), body: init?.body ? JSON.parse(String(init.body)) : undefined }));
  return {
    fetchMock,
    calls,
    /** The GET .../messages requests so far (their URLs). */
    messageRequests: () =>
      state.match ? calls('GET', `/api/users/${state.me}/matches/${state.match.id}/messages`).map((c) => c.url) : [],
  };
}

/** Stores a message as the server would: the next seq of the match. */
export function storeMessage(state: ChatServerState, message: Partial<Message>): Message {
  const seq = Math.max(0, ...state.messages.map((m) => m.seq)) + 1;
  const stored = makeMessage({ matchId: state.match?.id ?? 3, seq, ...message });
  state.messages.push(stored);
  if (state.match) state.match = { ...state.match, lastMessageSeq: seq };
  return stored;
}
