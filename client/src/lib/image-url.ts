import { placeholderImageUrl } from '@shared/schemas/artwork';

/** The server's generated placeholder for a name (GET /api/proxy/image?name=; it fetches nothing). */
export function placeholderUrl(name: string): string {
  return placeholderImageUrl(name);
}

/**
 * Where the browser loads a person's picture from: our own media as the server names it (a
 * `/media/...` path, or the media CDN's URL with MEDIA_PUBLIC_URL, which the page's CSP admits and
 * nothing else); no picture gives the placeholder for `name`. Remote podcast artwork comes from the
 * server as a signed image proxy URL (docs/image-proxy.md): the client never builds one.
 */
export function pictureSrc(url: string | null | undefined, name: string): string {
  return url || placeholderUrl(name);
}
