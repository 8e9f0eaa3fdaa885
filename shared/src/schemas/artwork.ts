import { z } from 'zod';

/** Podcast artwork through the server (SPEC section 7): an image, or a letter placeholder. */
export const IMAGE_PROXY_PATH = '/api/proxy/image';

export const IMAGE_PROXY_LIMITS = { nameMaxLength: 200, urlMaxLength: 2048 } as const;

// Control characters never belong in a show name or a URL.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to reject them
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
const CONTROL_CHARS_ALL = new RegExp(CONTROL_CHARS.source, 'g');

/** The remote image the proxy is asked to fetch (only with a valid `sig`, docs/image-proxy.md). */
export const ImageProxyTargetSchema = z
  .string()
  .max(IMAGE_PROXY_LIMITS.urlMaxLength, `must be at most ${IMAGE_PROXY_LIMITS.urlMaxLength} characters`)
  .refine((value) => !CONTROL_CHARS.test(value), 'must not contain control characters');

export const ImageProxyQuerySchema = z
  .object({
    url: ImageProxyTargetSchema.optional(),
    name: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(IMAGE_PROXY_LIMITS.nameMaxLength, `must be at most ${IMAGE_PROXY_LIMITS.nameMaxLength} characters`)
      .refine((value) => !CONTROL_CHARS.test(value), 'must not contain control characters')
      .optional(),
    /** The server's HMAC over `url` and `name`; a `url` without a valid one is a 404, never fetched. */
    sig: z.string().optional(),
    spotifyId: z
      .string()
      .regex(/^[A-Za-z0-9]{1,64}$/, 'must be a Spotify id (letters and digits)')
      .optional(),
  })
  .refine((query) => query.url !== undefined || query.name !== undefined, {
    message: 'Give a name or a url.',
    path: ['name'],
  });
export type ImageProxyQuery = z.infer<typeof ImageProxyQuerySchema>;

/**
 * A show's or person's name as the proxy's `name` parameter carries it: control characters as
 * spaces, trimmed, at most 200 characters (never half a surrogate pair), '?' when nothing is left.
 * The query schema leaves such a name as it is, so the server signs exactly what it will verify.
 */
export function artworkName(name: string): string {
  const clean = name.replace(CONTROL_CHARS_ALL, ' ').trim().slice(0, IMAGE_PROXY_LIMITS.nameMaxLength);
  return clean.replace(/[\uD800-\uDBFF]$/, '').trim() || '?';
}

/**
 * The letter placeholder for a name (GET /api/proxy/image?name=): the only proxy URL anyone may
 * build, as it fetches and stores nothing. Remote artwork comes from the server, signed
 * (`ArtworkUrlSchema`).
 */
export function placeholderImageUrl(name: string): string {
  return `${IMAGE_PROXY_PATH}?${new URLSearchParams({ name: artworkName(name) }).toString()}`;
}

/**
 * Where the browser loads a show's artwork from: a proxy URL the server signed (docs/image-proxy.md),
 * never the remote address itself. Null when the show has no artwork (the client shows the placeholder).
 */
export const ArtworkUrlSchema = z
  .string()
  .startsWith(`${IMAGE_PROXY_PATH}?`, 'must be a signed image proxy URL')
  .nullable();
