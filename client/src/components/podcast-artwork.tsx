import { useState } from 'react';
import { cn } from '@/lib/cn';
import { placeholderUrl } from '@/lib/image-url';

interface PodcastArtworkProps {
  name: string;
  /** The signed image proxy URL the server gave for the show's artwork (docs/image-proxy.md), or null. */
  imageUrl: string | null;
  className?: string;
}

type Stage = 'image' | 'placeholder' | 'tile';

/**
 * Podcast artwork with the SPEC fallback: the show's image, else (missing or failing) the generated
 * letter placeholder, else a local letter tile. Each step happens once, so errors never loop.
 */
export function PodcastArtwork({ name, imageUrl, className }: PodcastArtworkProps) {
  const [failed, setFailed] = useState<{ key: string; stage: Stage } | null>(null);
  const key = `${imageUrl ?? ''}|${name}`;
  const initial: Stage = imageUrl ? 'image' : 'placeholder';
  const stage = failed?.key === key ? failed.stage : initial;
  const box = cn('size-12 shrink-0 overflow-hidden rounded-xl bg-white/[0.06]', className);

  if (stage === 'tile') {
    const letter = name.trim().charAt(0).toUpperCase() || '?';
    return (
      <div
        aria-hidden="true"
        data-testid="podcast-artwork-tile"
        className={cn(box, 'grid place-items-center bg-gradient-to-br from-intent to-intent-soft font-bold text-white')}
      >
        {letter}
      </div>
    );
  }

  // The server's signed proxy URL, which answers the placeholder itself when the image fails.
  const src = stage === 'image' && imageUrl ? imageUrl : placeholderUrl(name);
  return (
    <img
      src={src}
      alt=""
      loading="lazy"
      decoding="async"
      referrerPolicy="no-referrer"
      className={cn(box, 'object-cover')}
      onError={() => setFailed({ key, stage: stage === 'image' ? 'placeholder' : 'tile' })}
    />
  );
}
