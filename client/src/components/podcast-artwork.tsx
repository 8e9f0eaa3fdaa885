import { IMAGE_PROXY_LIMITS, IMAGE_PROXY_PATH } from '@shared/schemas/artwork';
import { useState } from 'react';
import { cn } from '@/lib/cn';

interface PodcastArtworkProps {
  name: string;
  imageUrl: string | null;
  className?: string;
}

/** The server's SVG letter placeholder for a show name (GET /api/proxy/image?name=). */
export function placeholderUrl(name: string): string {
  const clean = name.trim().slice(0, IMAGE_PROXY_LIMITS.nameMaxLength) || '?';
  return `${IMAGE_PROXY_PATH}?${new URLSearchParams({ name: clean }).toString()}`;
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
