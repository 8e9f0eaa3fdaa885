import { api } from '@shared/api';
import { SelfUserSchema } from '@shared/schemas/user';
import { useQueryClient } from '@tanstack/react-query';
import { useSetAtom } from 'jotai';
import { useNavigate } from 'react-router-dom';
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

  return null;
}
