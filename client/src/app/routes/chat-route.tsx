import { useAtomValue } from 'jotai';
import { useParams } from 'react-router-dom';
import { ChatNotFound } from '@/features/chat/chat-not-found';
import { ChatScreen } from '@/features/chat/chat-screen';
import { sessionAtom } from '@/lib/session';
import { parseRouteId } from './parse-id';

/** Chat (/chat/:matchId): its own header, no bottom navigation. A match id that is not a number is not found. */
export default function ChatRoute() {
  const { matchId } = useParams();
  const session = useAtomValue(sessionAtom);
  const id = parseRouteId(matchId);
  if (!session) return null;
  if (id === null) return <ChatNotFound />;
  return <ChatScreen key={id} userId={session.userId} matchId={id} />;
}
