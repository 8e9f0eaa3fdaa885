// A person's picture (uploaded or generated): re-encoded with sharp into the sizes the app shows,
// stored under unguessable names, swapped in on the user row and the replaced files deleted.
import type { EntityManager } from '@mikro-orm/postgresql';
import { PICTURE_MAX_PIXELS } from '@shared/index';
import sharp, { type SharpOptions } from 'sharp';
import { sql } from '../db/sql';
import { type MediaFolder, type MediaStore, newMediaBase } from './media-store';

/**
 * The square sizes stored for every picture, largest first: the user's `profilePicture` is the
 * largest, and `<name>-128.webp` beside it is the small one (lists, rings, chat).
 */
export const PICTURE_SIZES = [512, 128] as const;

const sizedKey = (base: string, size: number) => `${base}-${size}.webp`;

/** Every size of one picture, encoded: `[size, WebP bytes]`, largest first. */
export type EncodedPicture = [size: number, data: Buffer][];

/**
 * Decodes `input` once (EXIF orientation applied) and encodes every size as WebP with no metadata:
 * no EXIF, GPS, XMP or ICC is copied. Rejects with sharp's error for an unreadable image.
 */
export async function encodePicture(input: Buffer, options: SharpOptions = {}): Promise<EncodedPicture> {
  const image = sharp(input, { limitInputPixels: PICTURE_MAX_PIXELS, failOn: 'warning', ...options }).rotate();
  const encoded: EncodedPicture = [];
  for (const size of PICTURE_SIZES) {
    const data = await image
      .clone()
      .resize(size, size, { fit: 'cover', position: 'attention' })
      .webp({ quality: 82 })
      .toBuffer();
    encoded.push([size, data]);
  }
  return encoded;
}

/** Stores every size under one new unguessable name and answers the largest's URL; nothing is left if a put fails. */
export async function storePicture(store: MediaStore, folder: MediaFolder, picture: EncodedPicture): Promise<string> {
  const base = newMediaBase(folder);
  const stored: string[] = [];
  try {
    for (const [size, data] of picture) {
      const key = sizedKey(base, size);
      await store.put(key, data, 'image/webp');
      stored.push(key);
    }
  } catch (error) {
    await Promise.all(stored.map((key) => store.delete(key)));
    throw error;
  }
  return store.url(sizedKey(base, PICTURE_SIZES[0]));
}

/** Deletes a stored picture with all its sizes; a URL that is not this store's is left alone. */
export async function deletePicture(store: MediaStore, url: string | null | undefined): Promise<void> {
  const key = url ? store.keyOf(url) : null;
  const match = key?.match(/^(.*)-\d+\.webp$/);
  if (!key) return;
  const keys = match ? PICTURE_SIZES.map((size) => sizedKey(match[1] as string, size)) : [key];
  await Promise.all(keys.map((k) => store.delete(k)));
}

/** Whether `url` is a generated avatar of this store (which an upload may replace, and a new avatar too). */
export function isGeneratedAvatar(store: MediaStore, url: string | null | undefined): boolean {
  const key = url ? store.keyOf(url) : null;
  return key?.startsWith('avatars/') ?? false;
}

/**
 * Makes `url` the user's picture and deletes the files of the one it replaced. The row is locked
 * while the old value is read, so concurrent changes of one person serialize and each deletes
 * exactly what it replaced. With `onlyOverGenerated`, an uploaded (or remote) picture is kept and
 * the new files are deleted instead. Answers whether the picture changed.
 */
export async function swapPicture(
  em: EntityManager,
  store: MediaStore,
  userId: number,
  url: string,
  options: { onlyOverGenerated?: boolean } = {},
): Promise<boolean> {
  const swapped = await em.transactional(async (tx) => {
    const [row] = await sql<{ profile_picture: string | null }>(
      tx,
      'select profile_picture from users where id = ? for update',
      [userId],
    );
    if (!row) return null;
    const old = row.profile_picture;
    if (options.onlyOverGenerated && old && !isGeneratedAvatar(store, old)) return null;
    await sql(tx, 'update users set profile_picture = ?, updated_at = now() where id = ?', [url, userId]);
    return { old };
  });
  if (!swapped) {
    await deletePicture(store, url);
    return false;
  }
  if (swapped.old !== url) await deletePicture(store, swapped.old);
  return true;
}
