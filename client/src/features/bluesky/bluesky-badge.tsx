import { blueskyProfileUrl } from '@shared/schemas/bluesky';
import { BadgeCheck } from 'lucide-react';

/** A linked Bluesky handle, verified both ways; opens the public profile of its DID. */
export function BlueskyBadge({ handle, did }: { handle: string; did: string }) {
  return (
    <a
      href={blueskyProfileUrl(did)}
      target="_blank"
      rel="noopener noreferrer"
      data-testid="bluesky-badge"
      aria-label={`Verified Bluesky handle @${handle} (opens Bluesky)`}
      className="inline-flex min-h-9 items-center gap-1.5 rounded-full bg-sky-500/15 px-3 text-sm font-medium text-sky-200 hover:bg-sky-500/25 focus-visible:outline focus-visible:outline-2 focus-visible:outline-sky-300"
    >
      <BadgeCheck aria-hidden="true" className="size-4" />@{handle}
    </a>
  );
}
