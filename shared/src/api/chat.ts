import {
  MarkReadBodySchema,
  MessageListSchema,
  MessageSchema,
  MessagesQuerySchema,
  SendMessageBodySchema,
  UserMatchMessagesParamsSchema,
} from '../schemas/chat';
import { MatchIdParamsSchema, MatchViewSchema } from '../schemas/matches';
import { defineEndpoint } from './endpoint';

export const chatApi = {
  /** A page of the conversation, oldest first (see MessagesQuerySchema). */
  listMessages: defineEndpoint({
    method: 'GET',
    path: '/api/users/:userId/matches/:matchId/messages',
    access: 'matchParty',
    params: UserMatchMessagesParamsSchema,
    query: MessagesQuerySchema,
    response: MessageListSchema,
  }),
  /** Also over the socket ('message:send' with an acknowledgement). senderId must be the caller. */
  sendMessage: defineEndpoint({
    method: 'POST',
    path: '/api/chat',
    access: 'matchSender',
    body: SendMessageBodySchema,
    response: MessageSchema,
    status: 201,
  }),
  /** Read receipts: the caller has read everything up to `seq` (also 'message:read' over the socket). */
  markMessagesRead: defineEndpoint({
    method: 'POST',
    path: '/api/matches/:matchId/read',
    access: 'matchParty',
    params: MatchIdParamsSchema,
    body: MarkReadBodySchema,
    response: MatchViewSchema,
  }),
} as const;
