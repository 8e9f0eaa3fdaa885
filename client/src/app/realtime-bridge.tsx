import { api } from '@shared/api';
import { MatchViewSchema } from '@shared/schemas/matches';
import { SelfUserSchema } from '@shared/schemas/user';
import { useQueryClient } from '@tanstack/react-query';
import { useSetAtom } from 'jotai';
import { useNavigate } from 'react-router-dom';
import { invalidateAfterMatch } from '@/features/feed/feed-queries';
import { announceMutualMatch } from '@/features/feed/mutual-match-toast';
import { endpointQuery } from '@/lib/api-client';
import { badgesAtom } from '@/lib/badges';
import { endSession } from '@/lib/session';
import { useSocketConnection, useSocketEvent } from '@/lib/socket';

/**
 * Lives while a validated session exists (loaded lazily, so socket.io-client stays out of the
 * login bundle). Unmounting it, i.e. ending the session, disconnects the socket.
 */
export default function RealtimeBridge({ userId }: { userId: number }) {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const setBadges = useSetAtom(badgesAtom);

  useSocketConnection(userId, () => {
    endSession();
    navigate('/login', { replace: true });
  });

  useSocketEvent('user:updated', (user) => {
    const parsed = SelfUserSchema.safeParse(user);
    if (!parsed.success) return;
    queryClient.setQueryData(endpointQuery(api.getUser, { params: { userId: parsed.data.id } }).queryKey, parsed.data);
  });

  useSocketEvent('badges:update', (counts) => setBadges(counts));

  // A like made a pair mutual: every tab of both people shows the intent's toast once per match.
  useSocketEvent('match:new', (match) => {
    const parsed = MatchViewSchema.safeParse(match);
    if (!parsed.success) return;
    announceMutualMatch(parsed.data);
    void invalidateAfterMatch(queryClient, userId);
  });

  return null;
}
