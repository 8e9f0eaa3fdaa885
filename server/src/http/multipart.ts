import type { RequestHandler } from 'express';
import multer from 'multer';
import { badRequest, HttpError } from './errors';

/**
 * Reads one file of a multipart/form-data request into memory (`req.file`), at most `maxBytes`:
 * a larger file stops the upload with a 413 and `tooLarge` as its message, and nothing is written
 * to disk. Mount it after the access rule (mount()'s `before`), so nobody uploads into someone
 * else's account.
 */
export function singleFileUpload(field: string, maxBytes: number, tooLarge: string): RequestHandler {
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: maxBytes, files: 1, fields: 5, parts: 10 },
  }).single(field);
  return (req, res, next) =>
    upload(req, res, (error: unknown) => {
      if (!error) return next();
      if (error instanceof multer.MulterError) {
        if (error.code === 'LIMIT_FILE_SIZE') return next(new HttpError(413, 'payload_too_large', tooLarge));
        return next(new HttpError(400, 'bad_upload', `Upload refused: ${error.message}.`));
      }
      next(badRequest('Send the file as multipart/form-data.'));
    });
}
