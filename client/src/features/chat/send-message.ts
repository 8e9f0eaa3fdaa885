import { api } from '@shared/api';
import { CHAT_TEXTS } from '@shared/constants';
import { type Message, MessageSchema } from '@shared/schemas/chat';
import { apiRequest, InvalidResponseError, isApiError } from '@/lib/api-client';
import { AckError, AckTimeoutError, emitWithAck, getSocket } from '@/lib/socket';

/** How long a socket send waits for its acknowledgement before it is tried again. */
export const SEND_ACK_TIMEOUT_MS = 10_000;
/** Tries per message: a lost acknowledgement, a network failure or a 503 is retried with the same clientId. */
export const SEND_ATTEMPTS = 4;
/** The pause before try n+1 after a 503 (the service restarting its database): 1 s, 2 s, 3 s. */
export const UNAVAILABLE_PAUSE_MS = 1000;

export interface OutgoingMessage {
  userId: number;
  matchId: number;
  content: string;
  /** The same for every try of one message, so the server stores it once. */
  clientId: string;
}

async function viaSocket({ matchId, content, clientId }: OutgoingMessage, timeoutMs: number): Promise<Message> {
  const data = await emitWithAck('message:send', { matchId, content, clientId }, timeoutMs);
  const parsed = MessageSchema.safeParse(data);
  if (!parsed.success) throw new InvalidResponseError('message:send', parsed.error);
  return parsed.data;
}

function viaHttp({ userId, matchId, content, clientId }: OutgoingMessage): Promise<Message> {
  return apiRequest(api.sendMessage, { body: { matchId, senderId: userId, content, clientId } });
}

/** A timeout or a failed connection says nothing about the message: trying again is safe. */
function isRetryable(error: unknown): boolean {
  return error instanceof AckTimeoutError || error instanceof TypeError || isUnavailable(error);
}

/** 503: nothing was stored, and the service asks to be tried again shortly. */
function isUnavailable(error: unknown): boolean {
  return (error instanceof AckError || isApiError(error)) && error.status === 503;
}

/**
 * Sends one message and resolves to the stored copy: over the socket with an acknowledgement when it
 * is connected, else POST /api/messages, each try with the same clientId (the server dedupes).
 */
export async function deliverMessage(
  message: OutgoingMessage,
  { timeoutMs = SEND_ACK_TIMEOUT_MS, attempts = SEND_ATTEMPTS, pauseMs = UNAVAILABLE_PAUSE_MS } = {},
): Promise<Message> {
  let lastError: unknown;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    try {
      return getSocket().connected ? await viaSocket(message, timeoutMs) : await viaHttp(message);
    } catch (error) {
      if (!isRetryable(error)) throw error;
      lastError = error;
      if (isUnavailable(error) && attempt + 1 < attempts) {
        await new Promise((resolve) => setTimeout(resolve, pauseMs * (attempt + 1)));
      }
    }
  }
  throw lastError;
}

/** What the composer says when a send failed (SPEC section 8; 429 has its own text). */
export function sendErrorText(error: unknown): string {
  const status = error instanceof AckError ? error.status : isApiError(error) ? error.status : undefined;
  return status === 429 ? CHAT_TEXTS.rateLimited : CHAT_TEXTS.sendFailed;
}
