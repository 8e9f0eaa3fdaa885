import { Navigate, useParams } from 'react-router-dom';
import { ProfileDetailsPlaceholder } from '@/features/profile-details/profile-details-placeholder';
import { parseRouteId } from './parse-id';

/** /profile-details/:matchedUserId/:matchId? — a missing or non-numeric user id goes to /matches. */
export default function ProfileDetailsRoute() {
  const params = useParams();
  const matchedUserId = parseRouteId(params.matchedUserId);
  if (matchedUserId === null) return <Navigate to="/matches" replace />;
  return <ProfileDetailsPlaceholder matchedUserId={matchedUserId} matchId={parseRouteId(params.matchId)} />;
}
