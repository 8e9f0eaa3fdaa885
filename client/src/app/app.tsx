import { createBrowserRouter, RouterProvider } from 'react-router-dom';
import { createQueryClient } from '@/lib/query-client';
import { listenForNavigation, registerServiceWorker } from '@/lib/service-worker';
import { readStoredSession } from '@/lib/session';
import { AppProviders } from './providers';
import { preloadSessionServices } from './root-layout';
import { preloadRoute, routes } from './routes';

const queryClient = createQueryClient();
// The chunks and data this first screen needs start loading now, in parallel, not one after the other.
const session = readStoredSession();
if (session) preloadSessionServices();
preloadRoute(window.location.pathname, session && { queryClient, userId: session.userId });
const router = createBrowserRouter(routes);
// The service worker registers after load (never before the first paint); a tapped notification
// routes this window to its screen (docs/notifications.md).
registerServiceWorker();
listenForNavigation((url) => void router.navigate(url));

export function App() {
  return (
    <AppProviders queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProviders>
  );
}
