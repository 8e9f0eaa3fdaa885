import { imageProxyUrl } from '@shared/schemas/artwork';

/** The server's generated placeholder for a name (GET /api/proxy/image?name=). */
export function placeholderUrl(name: string): string {
  return imageProxyUrl({ name });
}

/**
 * Where the browser loads an image from: our own files (`/media/...`) directly, anything remote
 * only through the image proxy (docs/image-proxy.md), so no third party learns who looks at what;
 * no image at all gives the placeholder for `name`.
 */
export function imageSrc(url: string | null | undefined, name: string): string {
  if (!url) return placeholderUrl(name);
  const ownPath = url.startsWith('/') && !url.startsWith('//');
  return ownPath ? url : imageProxyUrl({ name, imageUrl: url });
}
