import { useState } from 'react';
import { placeholderUrl } from './podcast-artwork';

/**
 * A person's picture, or their letter placeholder when there is none or it fails to load (a
 * failure is remembered for that URL only, so a new picture is tried again).
 */
export function PersonPicture({
  name,
  picture,
  className,
  lazy = false,
}: {
  name: string;
  picture: string | null;
  className: string;
  lazy?: boolean;
}) {
  const [failed, setFailed] = useState<string | null>(null);
  const src = picture && failed !== picture ? picture : placeholderUrl(name);
  return (
    <img
      src={src}
      alt=""
      loading={lazy ? 'lazy' : undefined}
      decoding="async"
      referrerPolicy="no-referrer"
      onError={() => {
        if (picture) setFailed(picture);
      }}
      className={className}
    />
  );
}
