import { useParams } from 'react-router-dom';
import { ChatPlaceholder } from '@/features/chat/chat-placeholder';
import { parseRouteId } from './parse-id';

export default function ChatRoute() {
  const { matchId } = useParams();
  return <ChatPlaceholder matchId={parseRouteId(matchId)} />;
}
