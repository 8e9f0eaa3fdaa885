import { z } from 'zod';

/** Podcast artwork through the server (SPEC section 7): an image, or a letter placeholder. */
export const IMAGE_PROXY_PATH = '/api/proxy/image';

export const IMAGE_PROXY_LIMITS = { nameMaxLength: 200, urlMaxLength: 2048 } as const;

// Control characters never belong in a show name or a URL.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to reject them
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
const CONTROL_CHARS_ALL = new RegExp(CONTROL_CHARS.source, 'g');

export const ImageProxyQuerySchema = z
  .object({
    url: z
      .string()
      .max(IMAGE_PROXY_LIMITS.urlMaxLength, `must be at most ${IMAGE_PROXY_LIMITS.urlMaxLength} characters`)
      .refine((value) => !CONTROL_CHARS.test(value), 'must not contain control characters')
      .optional(),
    name: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(IMAGE_PROXY_LIMITS.nameMaxLength, `must be at most ${IMAGE_PROXY_LIMITS.nameMaxLength} characters`)
      .refine((value) => !CONTROL_CHARS.test(value), 'must not contain control characters')
      .optional(),
    spotifyId: z
      .string()
      .regex(/^[A-Za-z0-9]{1,64}$/, 'must be a Spotify id (letters and digits)')
      .optional(),
  })
  .refine((query) => query.url !== undefined || query.name !== undefined, {
    message: 'give a name or a url',
    path: ['name'],
  });
export type ImageProxyQuery = z.infer<typeof ImageProxyQuerySchema>;

/** The artwork URL the client should use for a show: its image via the proxy, or the placeholder. */
export function imageProxyUrl(show: { name: string; imageUrl?: string | null; spotifyId?: string | null }): string {
  const search = new URLSearchParams();
  if (show.imageUrl) search.set('url', show.imageUrl);
  search.set(
    'name',
    show.name.replace(CONTROL_CHARS_ALL, ' ').trim().slice(0, IMAGE_PROXY_LIMITS.nameMaxLength) || '?',
  );
  if (show.spotifyId) search.set('spotifyId', show.spotifyId);
  return `${IMAGE_PROXY_PATH}?${search.toString()}`;
}
