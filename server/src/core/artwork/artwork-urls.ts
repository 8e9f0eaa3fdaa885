import { createHmac, timingSafeEqual } from 'node:crypto';
import { artworkName, IMAGE_PROXY_PATH, ImageProxyTargetSchema } from '@shared/index';

/** Names what is signed, so a signature made for anything else under the same key never matches. */
const PURPOSE = 'podmatch image proxy v1';

/**
 * The image proxy's URLs (docs/image-proxy.md, "Signed URLs"). The proxy fetches only what the
 * server handed out: an API answer carries `/api/proxy/image?url=&name=&sig=`, where `sig` is an
 * HMAC-SHA256 under IMAGE_PROXY_KEY over the remote URL and the name of the placeholder served if
 * it fails (as GitHub's camo signs its URLs), so neither can be swapped. Every server instance and
 * worker holds the same key: a URL minted by one is served by all.
 */
export class ArtworkUrls {
  constructor(private readonly key: Buffer) {}

  /**
   * Where the browser loads a show's artwork: the signed proxy URL of its image, or null when it
   * has none the proxy could fetch (no URL, not http(s), or one the query schema would refuse).
   */
  forShow(name: string, imageUrl: string | null | undefined): string | null {
    if (!imageUrl || !/^https?:\/\//i.test(imageUrl) || !ImageProxyTargetSchema.safeParse(imageUrl).success) {
      return null;
    }
    return this.proxyUrl(imageUrl, name);
  }

  /** The signed proxy URL of `url`, with `name`'s placeholder should it fail (checks nothing about `url`). */
  proxyUrl(url: string, name: string): string {
    const shown = artworkName(name);
    const query = new URLSearchParams({ url, name: shown, sig: this.signature(url, shown) });
    return `${IMAGE_PROXY_PATH}?${query.toString()}`;
  }

  /** Whether `sig` is this server's signature of exactly this url and name (constant time). */
  verify(url: string, name: string | undefined, sig: string | undefined): boolean {
    if (name === undefined || sig === undefined) return false;
    const expected = Buffer.from(this.signature(url, name));
    const given = Buffer.from(sig);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private signature(url: string, name: string): string {
    // JSON keeps the parts apart whatever they contain.
    return createHmac('sha256', this.key)
      .update(JSON.stringify([PURPOSE, url, name]))
      .digest('base64url');
  }
}
