import { api } from '@shared/index';
import { Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { clientAddress } from '../../http/rate-limits';
import { mount } from '../../http/route';
import { viewOf } from '../matches/match.service';
import { listMessages, toMessage } from './message.service';

/**
 * Chat over REST (docs/chat.md). The same sends and read receipts exist over the socket
 * (chat.socket.ts); both go through ChatService. Who may call what: the access rules in
 * shared/src/api/chat.ts (`matchParty`; `matchSender` for the send, whose body names the match).
 */
export function chatRoutes(deps: AppDeps): Router {
  const router = Router();

  mount(router, api.listMessages, async ({ match, query, req }) =>
    (await listMessages(req.em, match.id, query)).map(toMessage),
  );

  mount(router, api.sendMessage, async ({ body, auth, req }) =>
    deps.chat.send(
      req.em,
      req.effects,
      auth.userId,
      { matchId: body.matchId, content: body.content, clientId: body.clientId },
      clientAddress(req),
    ),
  );

  mount(router, api.markMessagesRead, async ({ match, body, auth, req }) =>
    viewOf(req.em, await deps.chat.read(req.em, req.effects, match, auth.userId, body.seq), auth.userId, deps.artwork),
  );

  return router;
}
