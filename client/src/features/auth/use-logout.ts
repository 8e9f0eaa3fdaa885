import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { endSession } from '@/lib/session';
import { revokeServerSession } from './auth-requests';

/**
 * Logout: POST /api/auth/logout, then clear storage and go to /login. Ending the session also
 * unmounts the session services (whose realtime bridge disconnects the socket) and empties the
 * query cache.
 */
export function useLogout() {
  const navigate = useNavigate();
  const [isPending, setPending] = useState(false);
  const logout = async () => {
    setPending(true);
    await revokeServerSession();
    endSession();
    navigate('/login', { replace: true });
  };
  return { logout, isPending };
}
