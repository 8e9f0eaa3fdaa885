import type { RequestHandler } from 'express';
import multer from 'multer';
import { badRequest, HttpError } from './errors';
import { privateTempStorage, removeTempFilesWhenDone } from './upload-temp';

/** multer's refusals as answers: 413 with `tooLarge` over the size limit, 400 otherwise. */
function answering(upload: RequestHandler, tooLarge: string): RequestHandler {
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

const limits = (maxBytes: number) => ({ fileSize: maxBytes, files: 1, fields: 5, parts: 10 });

/**
 * Reads one file of a multipart/form-data request into memory (`req.file`), at most `maxBytes`:
 * a larger file stops the upload with a 413 and `tooLarge` as its message, and nothing is written
 * to disk. Mount it after the access rule (mount()'s `before`), so nobody uploads into someone
 * else's account.
 */
export function singleFileUpload(field: string, maxBytes: number, tooLarge: string): RequestHandler {
  const upload = multer({ storage: multer.memoryStorage(), limits: limits(maxBytes) }).single(field);
  return answering(upload, tooLarge);
}

/**
 * Streams one file of a multipart/form-data request to a private temporary file under `dir`
 * (`req.file.path`, http/upload-temp.ts), never into memory, at most `maxBytes` (413 with
 * `tooLarge`). The file is deleted once the response has closed, whatever answered it: the handler,
 * a later check that refused the request (body validation runs after this parser), an error, or the
 * client going away mid-upload. A handler that keeps the file moves it elsewhere before answering.
 */
export function singleFileToDisk(field: string, dir: string, maxBytes: number, tooLarge: string): RequestHandler {
  const upload = multer({ storage: privateTempStorage(dir), limits: limits(maxBytes) }).single(field);
  const answer = answering(upload, tooLarge);
  return (req, res, next) => {
    removeTempFilesWhenDone(req, res);
    answer(req, res, next);
  };
}
