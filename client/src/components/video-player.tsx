import { useMemo } from 'react';

const PLAYER_ORIGIN = 'https://player.vimeo.com';

/**
 * The numeric id of a video-hosting-service (Vimeo) link in its three forms — `vimeo.com/{id}`,
 * `player.vimeo.com/video/{id}` and `vimeo.com/{id}?share=copy` — else null (SPEC section 2,
 * "Other UI behaviour"). The host is compared exactly, so `vimeo.com.example.org` is not one.
 */
export function hostedVideoId(link: string | null | undefined): string | null {
  if (!link) return null;
  let url: URL;
  try {
    url = new URL(link.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const host = url.hostname.toLowerCase();
  const path =
    host === 'vimeo.com' || host === 'www.vimeo.com'
      ? /^\/(\d+)\/?$/.exec(url.pathname)
      : host === 'player.vimeo.com'
        ? /^\/video\/(\d+)\/?$/.exec(url.pathname)
        : null;
  return path?.[1] ?? null;
}

/** The embedded player's address for an id, with the player's options as its query. */
export function hostedPlayerUrl(
  id: string,
  options: { autoPlay: boolean; loop: boolean; muted: boolean; controls: boolean },
): string {
  const flag = (on: boolean) => (on ? '1' : '0');
  const query = new URLSearchParams({
    autoplay: flag(options.autoPlay),
    loop: flag(options.loop),
    muted: flag(options.muted),
    controls: flag(options.controls),
    playsinline: '1',
    dnt: '1',
  });
  return `${PLAYER_ORIGIN}/video/${id}?${query.toString()}`;
}

interface VideoPlayerProps {
  /** A video link: a Vimeo link plays embedded, anything else in a native `<video>`. */
  src: string;
  autoPlay?: boolean;
  loop?: boolean;
  muted?: boolean;
  controls?: boolean;
  className?: string;
  /** The native player's poster (a picture while the video loads). */
  poster?: string;
  /** The embedded player's accessible name. */
  title?: string;
  onError?: () => void;
  'data-testid'?: string;
}

/**
 * SPEC section 2's video player: autoplaying, looping and muted without controls by default. The
 * Vimeo recognition is derived from `src` on every render, so an empty or non-matching link drops
 * straight back to the native player (no stale id).
 */
export function VideoPlayer({
  src,
  autoPlay = true,
  loop = true,
  muted = true,
  controls = false,
  className,
  poster,
  title = 'Video intro',
  onError,
  'data-testid': testId,
}: VideoPlayerProps) {
  const hostedId = useMemo(() => hostedVideoId(src), [src]);

  if (hostedId) {
    return (
      <iframe
        key={hostedId}
        src={hostedPlayerUrl(hostedId, { autoPlay, loop, muted, controls })}
        title={title}
        allow="autoplay; fullscreen; picture-in-picture"
        referrerPolicy="strict-origin-when-cross-origin"
        onError={onError}
        className={className}
        data-testid={testId}
        data-hosted-id={hostedId}
      />
    );
  }
  return (
    <video
      key={src}
      src={src || undefined}
      poster={poster}
      autoPlay={autoPlay}
      loop={loop}
      muted={muted}
      controls={controls}
      playsInline
      onError={onError}
      className={className}
      data-testid={testId}
    />
  );
}
