import { LocalMediaStore } from './local-media-store';
import type { MediaSettings } from './media-config';
import type { MediaStore } from './media-store';
import { S3MediaStore } from './s3-media-store';

export { LocalMediaStore } from './local-media-store';
export { loadMediaSettings, MediaEnvSchema, type MediaSettings } from './media-config';
export type { MediaFolder, MediaStore } from './media-store';
export {
  isMediaKey,
  isPublicMediaKey,
  MEDIA_CACHE_CONTROL,
  MEDIA_URL_PREFIX,
  mediaContentType,
  newMediaBase,
} from './media-store';
export { type S3MediaRead, type S3MediaSettings, S3MediaStore } from './s3-media-store';

/** The driver MEDIA_DRIVER names, built the same way by the server and the worker. */
export function createMediaStore(settings: MediaSettings): MediaStore {
  switch (settings.driver) {
    case 'local':
      return new LocalMediaStore(settings.dir);
    case 's3':
      return new S3MediaStore(settings);
  }
}
