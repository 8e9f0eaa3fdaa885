// Picture upload (docs/media.md): typed by its bytes (the image proxy's check), never by the declared type or name; size and
// pixel limits before any decode; re-encoded (no metadata) into the app's sizes; then swapped in.
import type { EntityManager } from '@mikro-orm/postgresql';
import { PICTURE_MAX_PIXELS, PICTURE_UPLOAD_TEXTS, type SelfUser } from '@shared/index';
import sharp from 'sharp';
import { type ImageType, sniffImageType } from '../../core/artwork/image-type';
import { UserSchema } from '../../core/db/entities';
import type { MediaStore } from '../../core/media';
import { encodePicture, storePicture, swapPicture } from '../../core/media/pictures';
import { toSelfUser } from '../../core/presenters/user.presenter';
import { createSlots } from '../../core/slots';
import { badRequest, HttpError, notFound } from '../../http/errors';

/**
 * sharp's name for each image type the bytes may show (AVIF is read by its HEIF loader). The bytes
 * are typed by the image proxy's signature check: HTML, SVG (a script carrier) and HEIC (the bundled
 * decoder cannot read it) are none of these.
 */
const SHARP_FORMAT: Record<ImageType, string> = {
  'image/jpeg': 'jpeg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/avif': 'heif',
};

/** Decoding is CPU- and memory-heavy: at most this many pictures are decoded at once per server. */
const MAX_CONCURRENT_DECODES = 4;
const withDecodeSlot = createSlots(MAX_CONCURRENT_DECODES);

const unreadable = () => badRequest(PICTURE_UPLOAD_TEXTS.unreadable);

/** Checks and re-encodes an uploaded file; throws the 4xx a person should see. */
async function encodeUpload(file: Buffer) {
  const type = sniffImageType(file);
  if (!type) throw new HttpError(415, 'unsupported_media_type', PICTURE_UPLOAD_TEXTS.notAnImage);
  // The header alone: the pixel count is known before anything is decoded.
  const meta = await sharp(file, { limitInputPixels: false })
    .metadata()
    .catch(() => {
      throw unreadable();
    });
  if (meta.format !== SHARP_FORMAT[type] || !meta.width || !meta.height) throw unreadable();
  if (meta.width * meta.height > PICTURE_MAX_PIXELS) {
    throw new HttpError(413, 'too_many_pixels', PICTURE_UPLOAD_TEXTS.tooManyPixels);
  }
  return withDecodeSlot(() => encodePicture(file)).catch(() => {
    throw unreadable();
  });
}

/**
 * Makes an uploaded file the user's picture: the old uploaded or generated files are deleted once
 * the new URL is committed. Nothing is stored for a refused file. Answers the user as they see themself.
 */
export async function replaceProfilePicture(
  em: EntityManager,
  media: MediaStore,
  userId: number,
  file: Buffer | undefined,
): Promise<SelfUser> {
  if (!file) throw badRequest(PICTURE_UPLOAD_TEXTS.missing);
  const encoded = await encodeUpload(file);
  const url = await storePicture(media, 'pictures', encoded);
  await swapPicture(em, media, userId, url);
  const user = await em.findOne(UserSchema, userId, { refresh: true });
  if (!user) throw notFound('User not found.');
  return toSelfUser(user);
}
