// The page's Content-Security-Policy (docs/security.md): what the client may load and connect to.
// Only exact origins, never a bare scheme source (`ws:`, `https:`), which would let an injected
// script send what it reads to any host of that scheme or play media from anywhere.
import type { IncomingMessage } from 'node:http';
import type { HelmetOptions } from 'helmet';
import type { AppConfig } from '../config';

type ContentSecurityPolicyOptions = Exclude<HelmetOptions['contentSecurityPolicy'], boolean | undefined>;

/**
 * A Host header that is only a host name or address and an optional port: anything else (`;`,
 * spaces, a scheme) could add sources or directives to the policy, so it adds nothing.
 */
const PLAIN_HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * Where Socket.IO may connect: our own origin with the WebSocket scheme. From PUBLIC_URL when set
 * (`wss://` for https); otherwise from the request's Host, with both schemes (a proxy in front may
 * have ended TLS, so the request alone does not say which one the browser used). `'self'` covers
 * same-origin WebSockets in current browsers too; the explicit value serves the others.
 */
export function websocketSource(publicOrigin: string | undefined): (req: IncomingMessage) => string {
  if (publicOrigin) {
    const url = new URL(publicOrigin);
    const source = `${url.protocol === 'https:' ? 'wss' : 'ws'}://${url.host}`;
    return () => source;
  }
  return (req) => {
    const host = req.headers.host ?? '';
    return PLAIN_HOST.test(host) ? `ws://${host} wss://${host}` : '';
  };
}

/** The origin media URLs point at when it is not ours (MEDIA_PUBLIC_URL, docs/media.md), else null. */
export function mediaOrigin(media: AppConfig['media']): string | null {
  return media.driver === 's3' && media.publicUrl ? new URL(media.publicUrl).origin : null;
}

/** Helmet's CSP options for the app (server/src/app.ts). */
export function contentSecurityPolicy(config: AppConfig): ContentSecurityPolicyOptions {
  const media = mediaOrigin(config.media);
  const ownMedia = media ? [media] : [];
  return {
    directives: {
      // Remote images only through our image proxy (docs/image-proxy.md); our own media (video
      // posters) from the media origin when a CDN serves it.
      'img-src': ["'self'", 'data:', 'blob:', ...ownMedia],
      // blob: for the object URL that reads a chosen video's duration before upload
      // (client/src/features/videos/video-file.ts); such URLs are made by our own scripts.
      'media-src': ["'self'", 'blob:', ...ownMedia],
      'connect-src': ["'self'", websocketSource(config.publicOrigin)],
      'frame-src': ['https://player.vimeo.com'],
      // Helmet's defaults allow any https stylesheet and font; the client has only its own.
      'style-src': ["'self'", "'unsafe-inline'"],
      'font-src': ["'self'", 'data:'],
      'upgrade-insecure-requests': config.isProduction ? [] : null,
    },
  };
}
