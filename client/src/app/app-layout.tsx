import { useAtomValue } from 'jotai';
import { Suspense } from 'react';
import { Outlet, useLocation } from 'react-router-dom';
import { LoadingScreen } from '@/components/ui/loading-screen';
import { BottomNav, type NavTab } from '@/features/navigation/bottom-nav';
import { useBadges } from '@/lib/badges';
import { currentIntentAtom } from '@/lib/intent';
import { sessionAtom } from '@/lib/session';

/** Which tab a path belongs to; another user's profile counts as Matches (SPEC section 2). */
export function tabForPath(pathname: string): NavTab {
  if (pathname === '/profile' || pathname.startsWith('/profile/')) return 'profile';
  if (pathname.startsWith('/matches') || pathname.startsWith('/profile-details')) return 'matches';
  return 'feed';
}

/** Screens with the bottom navigation. The bar stays mounted while the screens below change. */
export function AppLayout() {
  const { pathname } = useLocation();
  const intent = useAtomValue(currentIntentAtom);
  const badges = useBadges(useAtomValue(sessionAtom)?.userId ?? null);
  return (
    <div className="min-h-dvh">
      <main className="mx-auto w-full max-w-md px-5 pt-6 pb-28">
        <Suspense fallback={<LoadingScreen />}>
          <Outlet />
        </Suspense>
      </main>
      <BottomNav
        activeTab={tabForPath(pathname)}
        currentIntent={intent}
        feedNotifications={badges.feed[intent]}
        matchNotificationsByIntent={badges.unreadMatches}
      />
    </div>
  );
}

export default AppLayout;
