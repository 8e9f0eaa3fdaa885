import { LocalMediaStore } from './local-media-store';
import type { MediaStore } from './media-store';

export { LocalMediaStore } from './local-media-store';
export type { MediaFolder, MediaStore } from './media-store';
export { isMediaKey, isPublicMediaKey, MEDIA_URL_PREFIX, newMediaBase } from './media-store';

/** Which driver stores media (MEDIA_DRIVER), with its settings; only `local` exists so far. */
export interface MediaSettings {
  driver: 'local';
  /** The directory of the local driver (MEDIA_DIR). */
  dir: string;
}

export function createMediaStore(settings: MediaSettings): MediaStore {
  switch (settings.driver) {
    case 'local':
      return new LocalMediaStore(settings.dir);
  }
}
