import { INTENT_INFO, type Intent } from '@shared/constants';
import type { SelfUser } from '@shared/schemas/user';
import { LogOut, UserRound } from 'lucide-react';
import type { ReactNode } from 'react';
import { Button } from '@/components/ui/button';
import { IntentSwitcher } from '@/components/ui/intent-switcher';
import { PlaceholderCard } from '@/components/ui/placeholder-card';
import { Spinner } from '@/components/ui/spinner';
import { useSwipeLeft } from './use-swipe-left';

interface ProfilePlaceholderProps {
  user?: SelfUser;
  intent: Intent;
  onIntentChange: (intent: Intent) => void;
  intentSaving?: boolean;
  onLogout: () => void;
  loggingOut?: boolean;
  /** Cards composed by the route (e.g. the Spotify connection), shown above Log out. */
  children?: ReactNode;
  /** A swipe left of more than 100 px (SPEC: goes to the feed). */
  onSwipeLeft?: () => void;
}

/** Stand-in for the own-profile screen (a later issue): name, tagline, intent switcher, log out. */
export function ProfilePlaceholder({
  user,
  intent,
  onIntentChange,
  intentSaving,
  onLogout,
  loggingOut,
  children,
  onSwipeLeft,
}: ProfilePlaceholderProps) {
  const info = INTENT_INFO[intent];
  const tagline = user?.[info.taglineField] ?? info.missingTagline;
  const initial = user?.displayName.trim().charAt(0).toUpperCase() || '?';
  const swipe = useSwipeLeft(() => onSwipeLeft?.());
  return (
    // pan-y: the browser scrolls vertically only, so a horizontal drag reaches the swipe handler.
    <div data-testid="profile-screen" className="grid touch-pan-y gap-6" {...swipe}>
      <IntentSwitcher value={intent} onChange={onIntentChange} disabled={intentSaving} />
      <header className="flex items-center gap-4">
        <div className="grid size-16 shrink-0 place-items-center rounded-full bg-gradient-to-br from-intent to-intent-soft text-2xl font-bold text-white shadow-lg shadow-intent/30">
          {user?.profilePicture ? (
            <img src={user.profilePicture} alt="" className="size-full rounded-full object-cover" />
          ) : (
            <span aria-hidden="true">{initial}</span>
          )}
        </div>
        <div className="min-w-0">
          <h1
            data-testid="user-display-name"
            title={user?.displayName}
            className="truncate text-2xl font-bold tracking-tight text-white"
          >
            {user?.displayName ?? '\u00a0'}
          </h1>
          <p className="line-clamp-2 text-sm text-zinc-400">{tagline}</p>
          {user ? (
            <p title={`@${user.username}`} className="truncate text-xs text-zinc-500">
              @{user.username}
            </p>
          ) : null}
        </div>
      </header>
      <PlaceholderCard icon={UserRound} title="Your profile">
        <p>The full profile arrives in a later release.</p>
        <p className="mt-1">Photo, video intro, taglines and your top podcasts will live here.</p>
      </PlaceholderCard>
      {children}
      <Button variant="destructive" className="w-full" onClick={onLogout} disabled={loggingOut}>
        {loggingOut ? <Spinner /> : <LogOut aria-hidden="true" className="size-4" />}
        Log out
      </Button>
    </div>
  );
}
