import { TIMING } from '@shared/constants';
import { useEffect, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';

export const SPOTIFY_AUTH_PATH = '/api/auth/spotify';

function SpotifyMark() {
  return (
    <svg aria-hidden="true" viewBox="0 0 24 24" className="size-5">
      <circle cx="12" cy="12" r="11" fill="currentColor" />
      <g fill="none" stroke="var(--color-spotify)" strokeLinecap="round">
        <path d="M6.5 9.2c3.8-1.2 8-.9 11.2 1" strokeWidth="1.9" />
        <path d="M7.2 12.5c3.1-.9 6.4-.6 9.1.9" strokeWidth="1.6" />
        <path d="M7.8 15.6c2.4-.6 4.9-.4 6.9.7" strokeWidth="1.3" />
      </g>
    </svg>
  );
}

/** Starts provider login: a short "Redirecting..." moment, then a full navigation to the server. */
export function SpotifyLoginButton() {
  const [redirecting, setRedirecting] = useState(false);
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);

  const start = () => {
    setRedirecting(true);
    timer.current = window.setTimeout(() => {
      window.location.href = SPOTIFY_AUTH_PATH;
    }, TIMING.spotifyRedirectDelayMs);
  };

  return (
    <Button
      variant="spotify"
      size="lg"
      className="w-full"
      onClick={start}
      disabled={redirecting}
      aria-busy={redirecting}
    >
      {redirecting ? <Spinner className="size-5" /> : <SpotifyMark />}
      {redirecting ? 'Redirecting...' : 'Continue with Spotify'}
    </Button>
  );
}
