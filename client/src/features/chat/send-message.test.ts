import { CHAT_TEXTS } from '@shared/constants';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '@/lib/api-client';
import { AckError } from '@/lib/socket';
import { makeMessage } from '@/test/fixtures';
import { jsonResponse, mockFetch } from '@/test/utils';
import { deliverMessage, sendErrorText } from './send-message';

const fake = await vi.hoisted(async () => (await import('@/test/fake-socket')).createFakeSocket());
vi.mock('socket.io-client', () => ({ io: (options: unknown) => fake.io(options) }));

const clientId = '0f8fad5b-d9cb-469f-a165-70867728950e';
const outgoing = { userId: 7, matchId: 3, content: 'Hello', clientId };
const stored = makeMessage({ seq: 5, senderId: 7, content: 'Hello', clientId });

describe('deliverMessage', () => {
  beforeEach(() => fake.reset());

  it('sends over the connected socket and resolves to the acknowledged message', async () => {
    fake.socket.connected = true;
    fake.answers.set('message:send', () => ({ ok: true, data: stored }));
    const fetchMock = mockFetch(() => jsonResponse({}, { status: 500 }));
    await expect(deliverMessage(outgoing)).resolves.toEqual(stored);
    expect(fake.sentOf('message:send')).toEqual([{ matchId: 3, content: 'Hello', clientId }]);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('a lost acknowledgement is retried with the same clientId', async () => {
    fake.socket.connected = true;
    let calls = 0;
    // The first try is never answered (the server stored it, or it was lost on the way).
    fake.answers.set('message:send', () => (++calls === 1 ? undefined : { ok: true, data: stored }));
    await expect(deliverMessage(outgoing, { timeoutMs: 20 })).resolves.toEqual(stored);
    expect(fake.sentOf('message:send')).toEqual([
      { matchId: 3, content: 'Hello', clientId },
      { matchId: 3, content: 'Hello', clientId },
    ]);
  });

  it('gives up after the last try', async () => {
    fake.socket.connected = true;
    fake.answers.set('message:send', () => undefined);
    await expect(deliverMessage(outgoing, { timeoutMs: 5, attempts: 2 })).rejects.toThrow(/No answer/);
    expect(fake.sentOf('message:send')).toHaveLength(2);
  });

  it('without a connection it posts to /api/messages with the same clientId', async () => {
    const fetchMock = mockFetch(() => jsonResponse(stored, { status: 201 }));
    await expect(deliverMessage(outgoing)).resolves.toEqual(stored);
    const [url, init] = fetchMock.mock.calls[0] ?? [];
    expect(url).toBe('/api/chat');
    expect(init?.method).toBe('POST');
    expect(JSON.parse(String(init?.body))).toEqual({ matchId: 3, senderId: 7, content: 'Hello', clientId });
  });

  it('a refusal is not retried', async () => {
    fake.socket.connected = true;
    fake.answers.set('message:send', () => ({
      ok: false,
      error: { status: 429, code: 'rate_limited', message: 'Slow down' },
    }));
    const error = await deliverMessage(outgoing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AckError);
    expect(fake.sentOf('message:send')).toHaveLength(1);
    expect(sendErrorText(error)).toBe(CHAT_TEXTS.rateLimited);
  });

  it('a 503 (the database restarting) is tried again after a pause, over the socket or REST', async () => {
    fake.socket.connected = true;
    let calls = 0;
    fake.answers.set('message:send', () =>
      ++calls < 3
        ? { ok: false, error: { status: 503, code: 'service_unavailable', message: 'Briefly unavailable' } }
        : { ok: true, data: stored },
    );
    await expect(deliverMessage(outgoing, { pauseMs: 5 })).resolves.toEqual(stored);
    expect(fake.sentOf('message:send')).toHaveLength(3);

    fake.reset();
    let posts = 0;
    mockFetch(() =>
      ++posts === 1
        ? jsonResponse({ error: 'service_unavailable', message: 'x' }, { status: 503 })
        : jsonResponse(stored, { status: 201 }),
    );
    await expect(deliverMessage(outgoing, { pauseMs: 5 })).resolves.toEqual(stored);
    expect(posts).toBe(2);

    // Still unavailable after the last try: the composer says so.
    fake.reset();
    mockFetch(() => jsonResponse({ error: 'service_unavailable', message: 'x' }, { status: 503 }));
    const error = await deliverMessage(outgoing, { pauseMs: 1, attempts: 2 }).catch((e: unknown) => e);
    expect(sendErrorText(error)).toBe(CHAT_TEXTS.sendFailed);
  });

  it('an acknowledged message that breaks the contract is an error', async () => {
    fake.socket.connected = true;
    fake.answers.set('message:send', () => ({ ok: true, data: { ...stored, seq: 'five' } }));
    await expect(deliverMessage(outgoing)).rejects.toThrow('Invalid response from server');
  });
});

describe('sendErrorText', () => {
  it('429 over REST or the socket has its own text; everything else the SPEC text', () => {
    expect(sendErrorText(new ApiError(429, 'Too Many Requests', '', undefined))).toBe(CHAT_TEXTS.rateLimited);
    expect(sendErrorText(new ApiError(500, 'Error', '', undefined))).toBe(CHAT_TEXTS.sendFailed);
    expect(sendErrorText(new TypeError('Failed to fetch'))).toBe('Failed to send message. Please try again.');
  });
});
