import { SPOTIFY_CONNECT_ERRORS } from '@shared/schemas/spotify';
import { Music2, RefreshCw, Unplug } from 'lucide-react';
import { ConnectionCard } from '@/components/connection-card';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { relativeDistance } from '@/lib/relative-time';
import { toast } from '@/lib/toast';
import { useReturnParams } from '@/lib/use-return-params';
import {
  useConnectSpotify,
  useDisconnectSpotify,
  useFinishSpotifyConnect,
  useSpotifyEntries,
  useSpotifyStatus,
  useSpotifySync,
} from './spotify-queries';

const SHOWN_PODCASTS = 5;

/**
 * After the OAuth round trip: ?spotify_connect=<code> is claimed by this signed-in account (the
 * outcome toasts come from the claim), ?spotify_error= toasts; either is handled once and dropped.
 */
function useConnectOutcome(userId: number) {
  const finish = useFinishSpotifyConnect(userId);
  useReturnParams('spotify_connect', 'spotify_error', ({ code, error }) => {
    if (error) {
      const info = Object.hasOwn(SPOTIFY_CONNECT_ERRORS, error) ? SPOTIFY_CONNECT_ERRORS[error] : undefined;
      toast({
        variant: 'destructive',
        ...(info ?? { title: 'Spotify Error', description: 'Connecting Spotify failed. Please try again.' }),
      });
    } else if (code) {
      finish.mutate(code);
    }
  });
}

/** The profile's music-streaming connection card: connect, refresh (podcasts.sync), disconnect. */
export function SpotifyConnectionCard({ userId }: { userId: number }) {
  useConnectOutcome(userId);
  const { data: status, isPending, isError } = useSpotifyStatus(userId);
  const connect = useConnectSpotify();
  const { sync, syncing } = useSpotifySync(userId);
  const disconnect = useDisconnectSpotify(userId);
  const entries = useSpotifyEntries(userId, status?.connected ? status.lastSpotifySync : undefined);

  // Not offered on a server without Spotify credentials and with nothing connected: the reason is in
  // the server's log and docs/spotify.md, not on a person's screen.
  if (status && !status.available && !status.connected) return null;

  return (
    <ConnectionCard
      name="Spotify"
      testId="spotify"
      icon={<Music2 aria-hidden="true" className="size-6" />}
      iconClassName="bg-spotify/15 text-spotify"
      state={
        isPending
          ? 'Checking connection...'
          : isError
            ? 'Could not load the connection.'
            : status.connected
              ? `Connected${status.spotifyId ? ` as ${status.spotifyId}` : ''} · Last sync ${relativeDistance(status.lastSpotifySync)}`
              : 'Not connected'
      }
    >
      {status && !status.connected ? (
        <div className="mt-4 grid gap-2">
          <p className="text-sm text-zinc-400">
            Connect Spotify to list the podcasts you follow; shared podcasts are what matching is based on.
          </p>
          <Button variant="spotify" onClick={() => connect.mutate()} disabled={connect.isPending}>
            {connect.isPending ? <Spinner /> : null}
            Connect Spotify
          </Button>
        </div>
      ) : null}

      {status?.connected ? (
        <div className="mt-4 grid gap-3">
          {entries.length > 0 ? (
            <div>
              <p className="text-xs font-medium uppercase tracking-wide text-zinc-500">
                {entries.length} {entries.length === 1 ? 'podcast' : 'podcasts'} from Spotify
              </p>
              <ul data-testid="spotify-podcasts" className="mt-1 grid gap-1 text-sm text-zinc-200">
                {entries.slice(0, SHOWN_PODCASTS).map((entry) => (
                  <li key={entry.id} className="truncate">
                    {entry.podcast.name}
                  </li>
                ))}
              </ul>
              {entries.length > SHOWN_PODCASTS ? (
                <p className="mt-1 text-xs text-zinc-500">and {entries.length - SHOWN_PODCASTS} more</p>
              ) : null}
            </div>
          ) : (
            <p className="text-sm text-zinc-400">
              {status.lastSpotifySync ? 'No saved podcasts on Spotify yet.' : 'Importing your podcasts...'}
            </p>
          )}
          <div className="grid grid-cols-2 gap-2">
            <Button variant="outline" size="sm" onClick={sync} disabled={syncing}>
              {syncing ? <Spinner /> : <RefreshCw aria-hidden="true" className="size-4" />}
              Refresh
            </Button>
            <Button
              variant="destructive"
              size="sm"
              onClick={() => disconnect.mutate()}
              disabled={disconnect.isPending || syncing}
            >
              {disconnect.isPending ? <Spinner /> : <Unplug aria-hidden="true" className="size-4" />}
              Disconnect
            </Button>
          </div>
        </div>
      ) : null}
    </ConnectionCard>
  );
}
