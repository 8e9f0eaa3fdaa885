// Where uploaded and generated media live (docs/media.md). Server and worker share one interface;
// the local-directory driver is the default, the S3 driver (s3-media-store.ts) stores in a bucket.
import { randomBytes } from 'node:crypto';

/** The public path every stored file is served under (by the server, unless MEDIA_PUBLIC_URL says otherwise). */
export const MEDIA_URL_PREFIX = '/media/';

/**
 * The top-level folders of the store: uploaded pictures, generated avatars, video intros with their
 * posters, and `incoming` (uploaded originals waiting for the transcoder: never served).
 */
export type MediaFolder = 'pictures' | 'avatars' | 'videos' | 'incoming';

/**
 * A key is a folder and a file name of letters, digits, '-' and '_' with one extension: no dots
 * elsewhere, no slashes in the name, nothing that could name a path outside the store.
 */
const KEY_PATTERN = /^(pictures|avatars|videos|incoming)\/[A-Za-z0-9_-]{1,100}\.(webp|png|jpg|mp4|webm|mkv|avi)$/;

export const isMediaKey = (key: string): boolean => KEY_PATTERN.test(key);

/** The type every served file gets, fixed by its extension (never taken from the upload or the store). */
const CONTENT_TYPES: Record<string, string> = {
  webp: 'image/webp',
  png: 'image/png',
  jpg: 'image/jpeg',
  mp4: 'video/mp4',
};

/** The content type of a key by its extension; octet-stream for uploaded originals of other kinds. */
export const mediaContentType = (key: string): string =>
  CONTENT_TYPES[key.slice(key.lastIndexOf('.') + 1)] ?? 'application/octet-stream';

/** Names never change content (every new picture gets a new random name): cache for a year. */
export const MEDIA_CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** A key the public may load: not an unprocessed upload. */
export const isPublicMediaKey = (key: string): boolean => isMediaKey(key) && !key.startsWith('incoming/');

/** An unguessable base name (128 random bits) for a new file in `folder`. */
export function newMediaBase(folder: MediaFolder): string {
  return `${folder}/${randomBytes(16).toString('base64url')}`;
}

export interface MediaStore {
  /** Stores `data` under `key` (never overwritten in place: names are new for every content). */
  put(key: string, data: Buffer, contentType: string): Promise<void>;
  /** Stores the file at `file` under `key`, moving it when it is on the same disk (large media). */
  putFile(key: string, file: string, contentType: string): Promise<void>;
  /** Copies `key` to the local file `file` (e.g. for ffmpeg); rejects when it does not exist. */
  getFile(key: string, file: string): Promise<void>;
  /** Deletes `key`; a missing file is not an error. */
  delete(key: string): Promise<void>;
  /** Every stored key (backups, docs/operations.md): files that are not media keys are skipped. */
  list(): AsyncIterable<string>;
  /** The URL the browser loads `key` from. */
  url(key: string): string;
  /** The key a URL of this store names, or null for any other URL (e.g. a remote picture). */
  keyOf(url: string): string | null;
}

export function assertMediaKey(key: string): void {
  if (!isMediaKey(key)) throw new Error(`Invalid media key: ${JSON.stringify(key)}`);
}

/** The key behind a `/media/...` URL, shared by drivers that serve under MEDIA_URL_PREFIX. */
export function keyOfMediaUrl(url: string): string | null {
  if (!url.startsWith(MEDIA_URL_PREFIX)) return null;
  const key = url.slice(MEDIA_URL_PREFIX.length);
  return isMediaKey(key) ? key : null;
}
