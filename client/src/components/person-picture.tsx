import { useState } from 'react';
import { pictureSrc, placeholderUrl } from '@/lib/image-url';

/**
 * SPEC section 5's avatar order: the user's own picture, then their intent profile's picture; null
 * when neither is set (the caller then shows the generated avatar in place of the stock images).
 */
export function pickPicture(
  picture: string | null | undefined,
  profilePicture?: string | null | undefined,
): string | null {
  return picture || profilePicture || null;
}

/**
 * A person's picture (see pickPicture), else the server's generated avatar for their name. When the
 * picture fails to load the generated avatar replaces it once: a failing default is left alone, so
 * there is no error loop. The failure is remembered for that URL only, so a new picture is tried.
 */
export function PersonPicture({
  name,
  picture,
  profilePicture,
  className,
  lazy = false,
  draggable,
  'data-testid': testId,
}: {
  name: string;
  picture: string | null | undefined;
  profilePicture?: string | null;
  className: string;
  lazy?: boolean;
  draggable?: boolean;
  'data-testid'?: string;
}) {
  const chosen = pickPicture(picture, profilePicture);
  const [failed, setFailed] = useState<string | null>(null);
  const usePicture = chosen !== null && failed !== chosen;
  return (
    <img
      src={usePicture ? pictureSrc(chosen, name) : placeholderUrl(name)}
      alt=""
      loading={lazy ? 'lazy' : undefined}
      decoding="async"
      referrerPolicy="no-referrer"
      draggable={draggable}
      onError={() => {
        if (usePicture) setFailed(chosen);
      }}
      className={className}
      data-testid={testId}
    />
  );
}
