// Media in an S3 bucket (AWS S3, MinIO or another S3-compatible store; docs/media.md). Every call is
// guarded by the key pattern before any request goes out, so no key names anything outside our folders.
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import {
  assertMediaKey,
  isMediaKey,
  isPublicMediaKey,
  keyOfMediaUrl,
  MEDIA_CACHE_CONTROL,
  MEDIA_URL_PREFIX,
  type MediaStore,
  mediaContentType,
} from './media-store';

export interface S3MediaSettings {
  bucket: string;
  region: string;
  /** An S3-compatible server (MinIO...); AWS S3 when unset. */
  endpoint?: string | undefined;
  /** Bucket in the path (`http://host/bucket/key`) rather than the host name. */
  forcePathStyle: boolean;
  /** Unset: the SDK's default chain (environment, shared config files, container or instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
  /** Set when the bucket (or a CDN before it) is public: URLs point there instead of our /media. */
  publicUrl?: string | undefined;
}

/** One object opened for serving: the bytes asked for, or why there are none. */
export type S3MediaRead =
  | { status: 'missing' }
  | { status: 'unsatisfiable' }
  | { status: 'ok'; body: Readable; size: number; range: { start: number; end: number } | null };

/** Parts of large uploads (lib-storage multipart): memory per upload is about partSize x queueSize. */
const DEFAULT_PART_SIZE = 8 * 1024 * 1024;
const UPLOAD_QUEUE_SIZE = 2;

const errorName = (error: unknown) => (error as { name?: string } | null)?.name;
const httpStatus = (error: unknown) =>
  (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;
/** A missing object (not a missing bucket: that is a configuration error and stays an error). */
const isMissingObject = (error: unknown) => errorName(error) === 'NoSuchKey' || errorName(error) === 'NotFound';

export class S3MediaStore implements MediaStore {
  readonly client: S3Client;
  readonly bucket: string;
  private readonly publicUrl: string | undefined;
  private readonly partSize: number;

  constructor(settings: S3MediaSettings, options: { partSizeBytes?: number } = {}) {
    this.bucket = settings.bucket;
    this.publicUrl = settings.publicUrl?.replace(/\/+$/, '');
    this.partSize = Math.max(5 * 1024 * 1024, options.partSizeBytes ?? DEFAULT_PART_SIZE);
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.credentials,
      // Recent SDKs add CRC checksums (aws-chunked uploads with trailers) that several S3-compatible
      // servers store as part of the object or reject; checksums only where the API requires them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: {
        connectionTimeout: 5000,
        // A served video holds its bucket connection while the browser reads: more than the SDK's 50.
        httpAgent: { keepAlive: true, maxSockets: 256 },
        httpsAgent: { keepAlive: true, maxSockets: 256 },
      },
    });
  }

  /** Object metadata: our fixed type per extension, and the year-long cache for what may be served. */
  private objectHeaders(key: string, contentType: string) {
    const fixed = mediaContentType(key);
    return {
      ContentType: fixed === 'application/octet-stream' ? contentType : fixed,
      ...(isPublicMediaKey(key) ? { CacheControl: MEDIA_CACHE_CONTROL } : {}),
    };
  }

  async put(key: string, data: Buffer, contentType: string): Promise<void> {
    assertMediaKey(key);
    // One PUT: S3 shows an object whole or not at all, like the local driver's rename.
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: data, ...this.objectHeaders(key, contentType) }),
    );
  }

  async putFile(key: string, file: string, contentType: string): Promise<void> {
    assertMediaKey(key);
    // Streamed from disk: one PUT when small, a multipart upload (parts retried alone) when large.
    const upload = new Upload({
      client: this.client,
      params: {
        Bucket: this.bucket,
        Key: key,
        Body: fs.createReadStream(file),
        ...this.objectHeaders(key, contentType),
      },
      partSize: this.partSize,
      queueSize: UPLOAD_QUEUE_SIZE,
    });
    await upload.done();
    // A move, like the local driver: the local copy goes once the bucket has it (kept on failure).
    await fs.promises.rm(file, { force: true });
  }

  async getFile(key: string, file: string): Promise<void> {
    assertMediaKey(key);
    let body: Readable;
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      body = toReadable(object.Body);
    } catch (error) {
      // The local driver's answer for a missing file, so callers need not know the driver.
      if (isMissingObject(error)) throw Object.assign(new Error(`No media object ${key}`), { code: 'ENOENT' });
      throw error;
    }
    try {
      await pipeline(body, fs.createWriteStream(file));
    } catch (error) {
      await fs.promises.rm(file, { force: true });
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertMediaKey(key);
    try {
      // S3 answers 204 for a missing key too; some compatible stores say NoSuchKey.
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (error) {
      if (!isMissingObject(error)) throw error;
    }
  }
  async *list(): AsyncIterable<string> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, ContinuationToken: token, MaxKeys: 1000 }),
      );
      for (const object of page.Contents ?? []) if (object.Key && isMediaKey(object.Key)) yield object.Key;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  url(key: string): string {
    assertMediaKey(key);
    return this.publicUrl ? `${this.publicUrl}/${key}` : `${MEDIA_URL_PREFIX}${key}`;
  }

  keyOf(url: string): string | null {
    // `/media/...` too: URLs stored before MEDIA_PUBLIC_URL was set still name our objects.
    if (this.publicUrl && url.startsWith(`${this.publicUrl}/`)) {
      return keyOfMediaUrl(`${MEDIA_URL_PREFIX}${url.slice(this.publicUrl.length + 1)}`);
    }
    return keyOfMediaUrl(url);
  }

  /** The size of `key` in bytes, or null when there is no such object (for HEAD and 416 answers). */
  async sizeOf(key: string, signal?: AbortSignal): Promise<number | null> {
    assertMediaKey(key);
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }), {
        abortSignal: signal,
      });
      return head.ContentLength ?? 0;
    } catch (error) {
      if (isMissingObject(error)) return null;
      throw error;
    }
  }

  /**
   * Opens `key` for streaming, `range` (one `bytes=` range) forwarded to GetObject: the store
   * answers 206 with the bytes it chose, or 416 when the range starts past the end.
   */
  async read(key: string, range: string | undefined, signal?: AbortSignal): Promise<S3MediaRead> {
    assertMediaKey(key);
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: range }), {
        abortSignal: signal,
      });
      const body = toReadable(object.Body);
      const match = object.ContentRange && /^bytes (\d+)-(\d+)\/(\d+)$/.exec(object.ContentRange);
      if (match) {
        return {
          status: 'ok',
          body,
          size: Number(match[3]),
          range: { start: Number(match[1]), end: Number(match[2]) },
        };
      }
      // No Content-Range: the store sent the whole object (it may ignore a range it does not honour).
      return { status: 'ok', body, size: object.ContentLength ?? 0, range: null };
    } catch (error) {
      if (isMissingObject(error)) return { status: 'missing' };
      if (errorName(error) === 'InvalidRange' || httpStatus(error) === 416) return { status: 'unsatisfiable' };
      throw error;
    }
  }
}

/** The SDK's body in Node is a Readable (an IncomingMessage with helpers). */
function toReadable(body: unknown): Readable {
  if (body instanceof Readable) return body;
  throw new Error('The S3 client answered a body that is not a Node stream');
}
