import { api } from '@shared/index';
import { Router } from 'express';
import type { AppDeps } from '../../app-deps';
import { ImageProxy } from '../../core/artwork/image-proxy';
import { renderPlaceholderSvg } from '../../core/artwork/placeholder';
import { notFound } from '../../http/errors';
import { mount } from '../../http/route';

/** Cache-Control of a fetched image, of the placeholder for a name alone, and of one standing in for a failed url. */
const CACHE = {
  image: 'public, max-age=604800, stale-while-revalidate=2592000',
  placeholder: 'public, max-age=86400, stale-while-revalidate=604800',
  fallback: 'public, max-age=300',
} as const;

/**
 * GET /api/proxy/image?url=&name=&sig= (SPEC section 7; docs/image-proxy.md). Public: it reveals
 * nothing about anyone. A `url` is fetched only with the server's signature over it and `name`
 * (ArtworkUrls, in the API's answers), else 404 without a fetch: not a relay for anyone's URLs.
 * The remote image when it is a safe, reachable raster image (through ImageProxy), else the letter
 * placeholder for `name` (status 200: the client always gets an image); no `url` is the placeholder
 * alone, which fetches and stores nothing. Either way the answer cannot run anything: a strict CSP,
 * nosniff, and only image bytes.
 */
export function artworkRoutes(deps: Pick<AppDeps, 'config' | 'logger' | 'artwork'>): Router {
  const router = Router();
  const proxy = new ImageProxy(deps.config.imageProxy, deps.logger);
  mount(router, api.artworkImage, async ({ query, res }) => {
    const { url, name, sig } = query;
    if (url !== undefined && !deps.artwork.verify(url, name, sig)) throw notFound('No such image.');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // Nothing answered here is a document: an image opened directly must not run or load anything.
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    const image = url ? await proxy.get(url) : null;
    if (image?.ok) {
      res.setHeader('Content-Type', image.type);
      res.setHeader('Cache-Control', CACHE.image);
      res.send(image.body);
      return;
    }
    res.setHeader('Content-Type', 'image/svg+xml; charset=utf-8');
    res.setHeader('Cache-Control', image ? CACHE.fallback : CACHE.placeholder);
    res.send(renderPlaceholderSvg(name ?? ''));
  });
  return router;
}
