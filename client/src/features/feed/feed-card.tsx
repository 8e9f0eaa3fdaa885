import type { Intent } from '@shared/constants';
import type { FeedItem } from '@shared/schemas/feed';
import { animate, motion, type PanInfo, useMotionValue } from 'framer-motion';
import { useRef, useState } from 'react';
import { PersonPicture } from '@/components/person-picture';
import { PodcastArtwork } from '@/components/podcast-artwork';
import { VideoPlayer } from '@/components/video-player';
import { intentTextColor } from '@/lib/theme';
import { toast } from '@/lib/toast';
import {
  type DragDecision,
  decideDrag,
  dragHint,
  feedAvatar,
  feedDisplayName,
  feedTagline,
  feedVideo,
  GESTURE,
} from './feed-utils';

interface FeedCardProps {
  item: FeedItem;
  intent: Intent;
  /** Runs for next/previous right away, for profile/matches after the 300 ms exit animation. */
  onDecision: (decision: Exclude<DragDecision, 'none'>) => void;
  onOpenDetails: (userId: number) => void;
}

/** "1 shared show", "7 shared shows". */
export function sharedShowsLabel(count: number): string {
  return `${count} shared ${count === 1 ? 'show' : 'shows'}`;
}

/** One profile: the looping muted video (the picture when there is none), name, tagline, why you match. */
export function FeedCard({ item, intent, onDecision, onOpenDetails }: FeedCardProps) {
  const x = useMotionValue(0);
  const y = useMotionValue(0);
  const [hint, setHint] = useState<'matches' | 'profile' | null>(null);
  const [videoFailed, setVideoFailed] = useState(false);
  const [whyOpen, setWhyOpen] = useState(false);
  const dragged = useRef(false);
  const name = feedDisplayName(item);
  const tagline = feedTagline(item, intent);
  const avatar = feedAvatar(item);
  const video = videoFailed ? null : feedVideo(item);
  const color = intentTextColor(intent);

  const handleDrag = (_event: unknown, info: PanInfo) => {
    dragged.current = true;
    const next = dragHint(info.offset.x);
    setHint((current) => (current === next ? current : next));
  };

  const handleDragEnd = (_event: unknown, info: PanInfo) => {
    setHint(null);
    const decision = decideDrag(info.offset);
    // A click fires right after the pointer goes up; keep the "dragged" flag until then.
    setTimeout(() => {
      dragged.current = false;
    }, 0);
    if (decision === 'profile' || decision === 'matches') {
      const width = typeof window === 'undefined' ? 500 : window.innerWidth;
      const to = decision === 'profile' ? width : -width;
      void animate(x, to, { duration: GESTURE.exitMs / 1000, ease: 'easeIn' }).then(() => onDecision(decision));
      return;
    }
    void animate(x, 0, { type: 'spring', bounce: 0.2 });
    void animate(y, 0, { type: 'spring', bounce: 0.2 });
    if (decision !== 'none') onDecision(decision);
  };

  return (
    <div className="relative">
      {hint ? (
        <div
          aria-hidden="true"
          data-testid="drag-hint"
          className={`pointer-events-none absolute top-1/2 z-10 -translate-y-1/2 rounded-full bg-black/60 px-3 py-1 text-sm font-semibold text-white ${
            hint === 'matches' ? 'right-2' : 'left-2'
          }`}
        >
          {hint === 'matches' ? 'Matches' : 'Profile'}
        </div>
      ) : null}
      <motion.article
        data-testid="feed-card"
        aria-label={`${name}, ${item.matchPercentage}% match`}
        drag
        dragMomentum={false}
        style={{ x, y, touchAction: 'none' }}
        onDrag={handleDrag}
        onDragEnd={handleDragEnd}
        className="relative aspect-[3/4] w-full cursor-grab select-none overflow-hidden rounded-3xl border border-white/10 bg-zinc-900 shadow-2xl active:cursor-grabbing"
      >
        {video ? (
          <VideoPlayer
            src={video}
            poster={item.profile?.videoPosterUrl ?? avatar}
            title={`${name}'s video intro`}
            onError={() => {
              setVideoFailed(true);
              toast({
                variant: 'destructive',
                title: 'Error',
                description: 'Failed to load video. Please try again later.',
              });
            }}
            className="pointer-events-none absolute inset-0 size-full border-0 object-cover"
            data-testid="feed-video"
          />
        ) : (
          <PersonPicture
            name={name}
            picture={item.profilePicture}
            profilePicture={item.profile?.profilePicture}
            draggable={false}
            className="pointer-events-none absolute inset-0 size-full object-cover"
            data-testid="feed-picture"
          />
        )}
        {/* The text sits in the lower part, which generated intros leave empty, clear of the action
            buttons on the right (76 px: their column, in px at any text size); "Why you match" opens on
            an opaque panel, above the video. */}
        <div
          data-testid="feed-card-text"
          className={`absolute inset-x-0 bottom-0 p-5 pr-[76px] ${
            whyOpen
              ? 'max-h-full overflow-y-auto bg-zinc-950/95 pt-5'
              : 'bg-gradient-to-t from-black via-black/70 to-transparent pt-16'
          }`}
        >
          <button
            type="button"
            onClick={() => {
              if (!dragged.current) onOpenDetails(item.id);
            }}
            className="block w-full text-left"
          >
            <span className="flex items-baseline gap-2">
              <span data-testid="feed-name" className="min-w-0 truncate text-2xl font-bold text-white" title={name}>
                {name}
              </span>
              <span data-testid="feed-percentage" className="shrink-0 text-sm font-semibold" style={{ color }}>
                {item.matchPercentage}%
              </span>
            </span>
            <span data-testid="feed-tagline" className="mt-1 line-clamp-2 block text-sm text-zinc-200">
              {tagline}
            </span>
          </button>
          {item.sharedPodcasts.length > 0 ? (
            <details
              className="mt-1 text-sm text-zinc-200"
              onPointerDownCapture={(e) => e.stopPropagation()}
              onToggle={(e) => setWhyOpen(e.currentTarget.open)}
            >
              <summary data-testid="feed-why" className="min-h-11 cursor-pointer py-3 font-semibold text-white">
                Why you match · {sharedShowsLabel(item.sharedPodcasts.length)}
              </summary>
              {/* Chips that wrap: every shared show readable at once, no small scroll box. */}
              <ul className="mt-2 flex flex-wrap gap-1.5" aria-label="Shared shows">
                {item.sharedPodcasts.map((podcast) => (
                  <li
                    key={podcast.id}
                    className="inline-flex max-w-full items-center gap-1.5 rounded-full bg-black/50 py-1 pr-2.5 pl-1 text-xs text-white"
                    title={podcast.creator ? `${podcast.name} (${podcast.creator})` : podcast.name}
                  >
                    <PodcastArtwork name={podcast.name} imageUrl={podcast.imageUrl} className="size-5 rounded-full" />
                    <span className="min-w-0 truncate">{podcast.name}</span>
                  </li>
                ))}
              </ul>
            </details>
          ) : null}
        </div>
      </motion.article>
    </div>
  );
}
