import { lazy, Suspense } from 'react';

const LazyCard = lazy(() => import('./notifications-card'));
const LazyPrompt = lazy(() => import('./notifications-prompt'));

/** The profile's "Notifications" card (its own chunk). */
export function NotificationsCard({ userId }: { userId: number }) {
  return (
    <Suspense fallback={null}>
      <LazyCard userId={userId} />
    </Suspense>
  );
}

/** The match moment's "Want to know when <name> writes back?" (its own chunk; renders nothing where it cannot help). */
export function NotificationsPrompt({ userId, name }: { userId: number; name: string }) {
  return (
    <Suspense fallback={null}>
      <LazyPrompt userId={userId} name={name} />
    </Suspense>
  );
}
