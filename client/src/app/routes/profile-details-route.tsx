import { Navigate, useParams } from 'react-router-dom';
import { ProfileDetailsScreen } from '@/features/profile-details/profile-details-screen';
import { parseRouteId } from './parse-id';

/**
 * /profile-details/:matchedUserId/:matchId? — a missing or non-numeric user id goes to /matches.
 * Whether a match exists (and so 'Send Message') comes from the server, not from the link.
 */
export default function ProfileDetailsRoute() {
  const params = useParams();
  const matchedUserId = parseRouteId(params.matchedUserId);
  if (matchedUserId === null) return <Navigate to="/matches" replace />;
  return <ProfileDetailsScreen key={matchedUserId} matchedUserId={matchedUserId} />;
}
