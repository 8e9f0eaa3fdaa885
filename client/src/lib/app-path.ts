/**
 * An app path (`/chat/12`), never another origin (`//evil.example`, `/\evil.example`, `https://...`):
 * what a notification may open. Shared by the service worker and the page, so no imports here.
 */
export function isAppPath(url: unknown): url is string {
  return typeof url === 'string' && url.startsWith('/') && !url.startsWith('//') && !url.startsWith('/\\');
}
