import { ArrowLeft, Podcast } from 'lucide-react';
import { Link } from 'react-router-dom';
import { buttonClasses } from '@/components/ui/button';
import { PlaceholderCard } from '@/components/ui/placeholder-card';

interface ProfileDetailsPlaceholderProps {
  matchedUserId: number;
  matchId: number | null;
}

/** Stand-in for another user's profile (a later issue). */
export function ProfileDetailsPlaceholder({ matchedUserId, matchId }: ProfileDetailsPlaceholderProps) {
  return (
    <div className="grid gap-6">
      <header className="flex items-center gap-3">
        <Link to="/matches" aria-label="Back to Matches" className={buttonClasses('ghost', 'icon')}>
          <ArrowLeft aria-hidden="true" className="size-5" />
        </Link>
        <h1 className="text-lg font-semibold text-white">Profile</h1>
      </header>
      <PlaceholderCard icon={Podcast} title="Profile details are on their way">
        <p>Other people's profiles arrive in a later release.</p>
        <p className="mt-1 text-zinc-500">
          User #{matchedUserId}
          {matchId !== null ? `, match #${matchId}` : ''}
        </p>
      </PlaceholderCard>
    </div>
  );
}
