import { useAtomValue } from 'jotai';
import { useParams, useSearchParams } from 'react-router-dom';
import { ChatNotFound } from '@/features/chat/chat-not-found';
import { ChatScreen } from '@/features/chat/chat-screen';
import { sessionAtom } from '@/lib/session';
import { parseRouteId } from './parse-id';

/**
 * Chat (/chat/:matchId): its own header, no bottom navigation. A match id that is not a number is not
 * found. `?icebreaker=1` (the match moment's "Send a message") starts with an icebreaker in the input.
 */
export default function ChatRoute() {
  const { matchId } = useParams();
  const [search] = useSearchParams();
  const session = useAtomValue(sessionAtom);
  const id = parseRouteId(matchId);
  if (!session) return null;
  if (id === null) return <ChatNotFound />;
  return <ChatScreen key={id} userId={session.userId} matchId={id} icebreaker={search.get('icebreaker') === '1'} />;
}
