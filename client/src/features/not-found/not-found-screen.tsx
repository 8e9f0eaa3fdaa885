import { Compass } from 'lucide-react';
import { useNavigate } from 'react-router-dom';
import { Button } from '@/components/ui/button';

/** Any unknown path (SPEC section 2). Reachable signed in or not. */
export function NotFoundScreen() {
  const navigate = useNavigate();
  return (
    <main className="grid min-h-dvh place-items-center px-6">
      <div className="w-full max-w-sm text-center">
        <div className="mx-auto mb-6 grid size-16 place-items-center rounded-3xl bg-intent/15 text-intent-soft">
          <Compass aria-hidden="true" className="size-8" />
        </div>
        <h1 className="text-2xl font-bold tracking-tight text-white">404 Page Not Found</h1>
        <p className="mt-3 text-sm leading-relaxed text-zinc-400">
          The page you're looking for doesn't exist or has been moved.
        </p>
        <div className="mt-8 grid gap-3 sm:grid-cols-2">
          <Button onClick={() => navigate('/')}>Go to Feed</Button>
          <Button variant="outline" onClick={() => navigate('/profile')}>
            View Profile
          </Button>
        </div>
      </div>
    </main>
  );
}
