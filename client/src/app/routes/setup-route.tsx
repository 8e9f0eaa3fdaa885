import { isSelfUser } from '@shared/schemas/user';
import { useQuery } from '@tanstack/react-query';
import { useAtomValue } from 'jotai';
import { CloudOff } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { LoadingScreen } from '@/components/ui/loading-screen';
import { BlueskyLinkCard } from '@/features/bluesky/bluesky-link-card';
import { OpmlImport } from '@/features/podcasts/opml-import';
import { useLibrary } from '@/features/podcasts/podcast-queries';
import { PodcastSearch } from '@/features/podcasts/podcast-search';
import { SetupWizard } from '@/features/setup/setup-wizard';
import { SpotifyConnectionCard } from '@/features/spotify/spotify-connection-card';
import { sessionAtom } from '@/lib/session';
import { userQuery } from '@/lib/user-queries';

/** Step 4 of the wizard: every way to list podcasts (so someone without Spotify can finish too), and Bluesky. */
function StreamingStep({ userId }: { userId: number }) {
  const library = useLibrary(userId);
  const count = library.data?.length ?? 0;
  return (
    <div className="grid min-w-0 gap-4">
      <SpotifyConnectionCard userId={userId} />
      <div className="grid gap-2">
        <p className="text-sm font-semibold text-white">No Spotify? Import your subscriptions</p>
        <p className="text-sm text-zinc-300">Export an OPML file from your podcast app and import it here.</p>
        <OpmlImport userId={userId} />
      </div>
      <PodcastSearch userId={userId} />
      <BlueskyLinkCard userId={userId} returnPage="setup" />
      <p aria-live="polite" data-testid="setup-library-count" className="text-sm text-zinc-300">
        {library.isPending
          ? 'Loading your podcasts…'
          : `${count} ${count === 1 ? 'podcast' : 'podcasts'} in your library`}
      </p>
    </div>
  );
}

/** /setup: the five-step wizard for the signed-in person (its step 4 composes the podcast and Spotify features). */
export default function SetupRoute() {
  const session = useAtomValue(sessionAtom);
  const query = useQuery({ ...userQuery(session?.userId ?? 0), enabled: session !== null });
  const user = query.data && isSelfUser(query.data) ? query.data : undefined;
  if (!user) {
    if (query.isPending) return <LoadingScreen />;
    return (
      <main className="grid min-h-dvh place-items-center px-6 text-center">
        <div className="w-full max-w-sm">
          <CloudOff aria-hidden="true" className="mx-auto size-10 text-zinc-300" />
          <h1 className="mt-4 text-xl font-semibold text-white">Could not load your profile</h1>
          <p className="mt-2 text-sm text-zinc-300">Please try again later.</p>
          <Button className="mt-6 w-full" onClick={() => void query.refetch()}>
            Try again
          </Button>
        </div>
      </main>
    );
  }
  return <SetupWizard user={user} streaming={<StreamingStep userId={user.id} />} />;
}
