import { IMAGE_PROXY_PATH, ImageProxyQuerySchema } from '@shared/index';
import { Router } from 'express';
import { badRequest } from '../../http/errors';
import { renderPlaceholderSvg } from './placeholder';

/**
 * GET /api/proxy/image?url=&name=&spotifyId= (SPEC section 7). Public: it reveals nothing about
 * anyone. For now it always answers the letter placeholder for `name`; proxying the remote image
 * at `url` arrives with the SSRF-safe fetcher (until then a given url is validated, then ignored).
 */
export function artworkRoutes(): Router {
  const router = Router();
  router.get(IMAGE_PROXY_PATH, (req, res) => {
    const parsed = ImageProxyQuerySchema.safeParse(req.query);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) => ({
        path: ['query', ...issue.path.map(String)].join('.'),
        message: issue.message,
      }));
      const first = issues[0];
      throw badRequest(first ? `Invalid ${first.path}: ${first.message}` : 'Invalid query.', issues);
    }
    const { name } = parsed.data;
    res.setHeader('Content-Type', 'image/svg+xml; charset=utf-8');
    // The placeholder for a name never changes; an SVG opened directly must not run anything.
    res.setHeader('Cache-Control', 'public, max-age=86400, stale-while-revalidate=604800');
    res.setHeader('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    res.send(renderPlaceholderSvg(name ?? ''));
  });
  return router;
}
