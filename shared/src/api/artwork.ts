import { IMAGE_PROXY_PATH, ImageProxyQuerySchema } from '../schemas/artwork';
import { BinarySchema, defineEndpoint } from './endpoint';

export const artworkApi = {
  /**
   * Remote artwork through our server (docs/image-proxy.md): the image when the server signed its
   * URL and it is a safe raster image, else the letter placeholder; public, it reveals nothing.
   */
  artworkImage: defineEndpoint({
    method: 'GET',
    path: IMAGE_PROXY_PATH,
    access: 'public',
    kind: 'binary',
    rateLimit: { name: 'artwork' },
    query: ImageProxyQuerySchema,
    response: BinarySchema,
  }),
};
