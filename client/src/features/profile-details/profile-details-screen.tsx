import * as Tabs from '@radix-ui/react-tabs';
import { api } from '@shared/api';
import { INTENT_INFO } from '@shared/constants';
import { displayName } from '@shared/display-name';
import type { ProfileDetails } from '@shared/schemas/profile-details';
import { useQuery } from '@tanstack/react-query';
import { ArrowLeft, MessageCircle, SearchX, TriangleAlert } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { MatchRing } from '@/components/match-ring';
import { PodcastArtwork } from '@/components/podcast-artwork';
import { Button, buttonClasses } from '@/components/ui/button';
import { BlueskyBadge } from '@/features/bluesky';
import { endpointQuery, errorMessage, isApiError } from '@/lib/api-client';
import { cn } from '@/lib/cn';
import { pictureSrc } from '@/lib/image-url';
import { relativeTime } from '@/lib/relative-time';
import { useCurrentIntent } from '@/lib/user-queries';

interface ProfileDetailsScreenProps {
  matchedUserId: number;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The Common tab's sentence: how many shows both list, or that the match rests on taste alone. */
export function commonSummary(name: string, count: number, shown: number): string {
  if (count === 0) return `You and ${name} don't share a show yet: your match comes from similar tastes.`;
  const more = count > shown ? ` Here are ${shown} of them.` : '';
  return `You and ${name} both listen to ${plural(count, 'show')}.${more}`;
}

/** /profile-details/{userId}/{matchId?} (SPEC section 2): another person's profile, in the intent in view. */
export function ProfileDetailsScreen({ matchedUserId }: ProfileDetailsScreenProps) {
  const [intent] = useCurrentIntent();
  const details = useQuery(endpointQuery(api.profileDetails, { params: { userId: matchedUserId }, query: { intent } }));

  return (
    <div className="grid gap-6 pb-8">
      <header className="flex items-center gap-3">
        <Link to="/matches" aria-label="Back to Matches" className={buttonClasses('ghost', 'icon')}>
          <ArrowLeft aria-hidden="true" className="size-5" />
        </Link>
        <h1 className="text-lg font-semibold text-white">Profile</h1>
      </header>
      {details.isPending ? (
        <ProfileSkeleton />
      ) : details.isError ? (
        isApiError(details.error, 404) ? (
          <Notice icon={<SearchX aria-hidden="true" className="size-8 text-zinc-300" />} title="Profile Not Found">
            <p>We couldn't find this profile. It may have been removed or is no longer available.</p>
            <Link to="/matches" className={buttonClasses('primary', 'md', 'mt-4')}>
              Return to Matches
            </Link>
          </Notice>
        ) : (
          <Notice
            icon={<TriangleAlert aria-hidden="true" className="size-8 text-red-300" />}
            title="Something went wrong"
          >
            <p>{errorMessage(details.error, 'Please try again later.')}</p>
            <Button variant="outline" className="mt-4" onClick={() => void details.refetch()}>
              Try again
            </Button>
          </Notice>
        )
      ) : (
        <ProfileBody details={details.data} />
      )}
    </div>
  );
}

function ProfileBody({ details }: { details: ProfileDetails }) {
  const name = displayName(details.user.displayName);
  const info = INTENT_INFO[details.user.intent];
  const tagline = details.user.tagline ?? info.defaultTagline;
  const picture = pictureSrc(details.user.profilePicture, name);
  return (
    <>
      <section className="grid justify-items-center gap-3 text-center" aria-label={`${name}'s profile`}>
        <MatchRing matchPercentage={details.matchPercentage} avatarUrl={picture} name={name} color={info.color} />
        <div>
          <h2 data-testid="profile-details-name" className="text-2xl font-bold text-white">
            {name}
          </h2>
          <p className="mt-1 text-sm text-zinc-300">{tagline}</p>
        </div>
        {details.bluesky ? <BlueskyBadge handle={details.bluesky.handle} did={details.bluesky.did} /> : null}
        {details.match ? (
          <Link to={`/chat/${details.match.id}`} className={buttonClasses('primary', 'md')}>
            <MessageCircle aria-hidden="true" className="size-4" />
            Send Message
          </Link>
        ) : null}
      </section>

      <Tabs.Root defaultValue="podcasts" className="grid gap-4">
        <Tabs.List aria-label="About them" className="grid grid-cols-3 gap-1 rounded-full bg-white/[0.06] p-1">
          {(['podcasts', 'activity', 'common'] as const).map((tab) => (
            <Tabs.Trigger
              key={tab}
              value={tab}
              className="min-h-11 rounded-full text-sm font-semibold capitalize text-zinc-300 data-[state=active]:bg-white data-[state=active]:text-zinc-950"
            >
              {tab}
            </Tabs.Trigger>
          ))}
        </Tabs.List>
        <Tabs.Content value="podcasts" className="grid gap-5">
          <Section title="Top categories">
            {details.topCategories.length === 0 ? (
              <Empty>No categories yet.</Empty>
            ) : (
              <ul className="flex flex-wrap gap-2" data-testid="top-categories">
                {details.topCategories.map((category) => (
                  <li key={category.name} className="rounded-full bg-white/[0.08] px-3 py-1.5 text-sm text-white">
                    {category.name} <span className="text-zinc-300">· {plural(category.count, 'show')}</span>
                  </li>
                ))}
              </ul>
            )}
          </Section>
          <Section title="Most listened">
            {details.topPodcasts.length === 0 ? (
              <Empty>No podcasts to show yet.</Empty>
            ) : (
              <ol className="grid gap-2" data-testid="top-podcasts">
                {details.topPodcasts.map((podcast) => (
                  <PodcastRow key={podcast.id} name={podcast.name} imageUrl={podcast.imageUrl}>
                    {`Listened ${plural(podcast.timesListened, 'time')}`}
                  </PodcastRow>
                ))}
              </ol>
            )}
          </Section>
        </Tabs.Content>
        <Tabs.Content value="activity">
          <Section title="Recent listens">
            {details.recentListens.length === 0 ? (
              <Empty>No recent listens.</Empty>
            ) : (
              <ol className="grid gap-2" data-testid="recent-listens">
                {details.recentListens.map((listen) => (
                  <PodcastRow
                    key={`${listen.podcast.id}-${listen.listenedAt}`}
                    name={listen.podcast.name}
                    imageUrl={listen.podcast.imageUrl}
                    aside={<time dateTime={listen.listenedAt}>{relativeTime(listen.listenedAt)}</time>}
                  >
                    {listen.episodeNumber !== null ? `Episode ${listen.episodeNumber}` : null}
                    {listen.episodeNumber !== null && listen.episodeTitle ? ' · ' : null}
                    {listen.episodeTitle}
                    {listen.description ? (
                      <span className="mt-0.5 line-clamp-2 block text-zinc-300">{listen.description}</span>
                    ) : null}
                  </PodcastRow>
                ))}
              </ol>
            )}
          </Section>
        </Tabs.Content>
        <Tabs.Content value="common">
          <Section title="In common">
            <p className="text-sm text-zinc-200" data-testid="common-summary">
              {commonSummary(name, details.common.count, details.common.podcasts.length)}
            </p>
            {details.common.podcasts.length > 0 ? (
              <ul className="mt-3 grid gap-2" data-testid="common-podcasts">
                {details.common.podcasts.map((podcast) => (
                  <PodcastRow key={podcast.id} name={podcast.name} imageUrl={podcast.imageUrl}>
                    {podcast.creator}
                  </PodcastRow>
                ))}
              </ul>
            ) : null}
          </Section>
        </Tabs.Content>
      </Tabs.Root>
    </>
  );
}

function PodcastRow({
  name,
  imageUrl,
  aside,
  children,
}: {
  name: string;
  imageUrl: string | null;
  aside?: ReactNode;
  children?: ReactNode;
}) {
  return (
    <li className="flex min-w-0 items-start gap-3 rounded-2xl bg-white/[0.04] p-2">
      <PodcastArtwork name={name} imageUrl={imageUrl} />
      <div className="min-w-0 flex-1 text-sm">
        <div className="flex items-baseline justify-between gap-2">
          <span className="truncate font-semibold text-white" title={name}>
            {name}
          </span>
          {aside ? <span className="shrink-0 text-xs text-zinc-300">{aside}</span> : null}
        </div>
        {children ? <div className="text-zinc-200">{children}</div> : null}
      </div>
    </li>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="grid gap-2">
      <h3 className="text-sm font-semibold uppercase tracking-wide text-zinc-300">{title}</h3>
      {children}
    </section>
  );
}

function Empty({ children }: { children: ReactNode }) {
  return <p className="text-sm text-zinc-300">{children}</p>;
}

function Notice({ icon, title, children }: { icon: ReactNode; title: string; children: ReactNode }) {
  return (
    <section className="grid justify-items-center gap-2 rounded-3xl border border-white/10 bg-white/[0.04] px-6 py-12 text-center text-sm text-zinc-200">
      {icon}
      <h2 className="text-xl font-bold text-white">{title}</h2>
      {children}
    </section>
  );
}

function ProfileSkeleton() {
  const block = 'animate-pulse rounded-2xl bg-white/[0.08]';
  return (
    <div role="status" aria-label="Loading profile" data-testid="profile-details-skeleton" className="grid gap-4">
      <div className={cn(block, 'mx-auto size-[60px] rounded-full')} />
      <div className={cn(block, 'mx-auto h-7 w-40')} />
      <div className={cn(block, 'mx-auto h-4 w-56')} />
      <div className={cn(block, 'h-11 w-full rounded-full')} />
      {[0, 1, 2].map((i) => (
        <div key={i} className={cn(block, 'h-16 w-full')} />
      ))}
    </div>
  );
}
